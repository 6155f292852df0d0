#include "base/sha256.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

/* First 32 bits of the fractional parts of the cube roots of the first 64 primes. */
static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

/* The SHA extensions from this many blocks at once (4 KiB): the managed
 * ruleset's few kilobytes never ask the CPU. */
#define SHA_FAST_MIN_BLOCKS 64

bool sha256_force_portable;

static uint32_t ror(uint32_t x, unsigned n)
{
	return x >> n | x << (32 - n);
}

/* One 64-byte block.  The eight working variables rotate by renaming in
 * the round macro, so no round moves memory (a memmove per round cost
 * half the digest's time on a 50,000-prefix ruleset). */
#define SHA_ROUND(a, b, c, d, e, f, g, h, i)                                              \
	do {                                                                              \
		uint32_t t1 = h + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + \
			      K[i] + w[i];                                                \
		uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c)); \
		d += t1;                                                                  \
		h = t1 + t2;                                                              \
	} while (0)

static void compress(uint32_t hs[8], const uint8_t block[64])
{
	uint32_t w[64], a, b, c, d, e, f, g, h;

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)block[4 * i] << 24 | (uint32_t)block[4 * i + 1] << 16 |
		       (uint32_t)block[4 * i + 2] << 8 | block[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = hs[0], b = hs[1], c = hs[2], d = hs[3], e = hs[4], f = hs[5], g = hs[6], h = hs[7];
	for (int i = 0; i < 64; i += 8) {
		SHA_ROUND(a, b, c, d, e, f, g, h, i);
		SHA_ROUND(h, a, b, c, d, e, f, g, i + 1);
		SHA_ROUND(g, h, a, b, c, d, e, f, i + 2);
		SHA_ROUND(f, g, h, a, b, c, d, e, i + 3);
		SHA_ROUND(e, f, g, h, a, b, c, d, i + 4);
		SHA_ROUND(d, e, f, g, h, a, b, c, i + 5);
		SHA_ROUND(c, d, e, f, g, h, a, b, i + 6);
		SHA_ROUND(b, c, d, e, f, g, h, a, i + 7);
	}
	hs[0] += a, hs[1] += b, hs[2] += c, hs[3] += d, hs[4] += e, hs[5] += f, hs[6] += g, hs[7] += h;
}

#if defined(__x86_64__)
/* The x86 SHA extensions (Intel since Goldmont and Ice Lake, AMD since Zen)
 * do two rounds an instruction: about five times the plain code.  The state
 * lives in two registers as ABEF and CDGH, the order sha256rnds2 wants. */
__attribute__((target("sha,sse4.1,ssse3")))
static void compress_shani(uint32_t hs[8], const uint8_t *p, size_t blocks)
{
	const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
	__m128i dcba = _mm_loadu_si128((const __m128i *)&hs[0]);
	__m128i hgfe = _mm_loadu_si128((const __m128i *)&hs[4]);
	__m128i cdab = _mm_shuffle_epi32(dcba, 0xb1);
	__m128i efgh = _mm_shuffle_epi32(hgfe, 0x1b);
	__m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
	__m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xf0);

	for (; blocks; blocks--, p += 64) {
		__m128i save_abef = abef, save_cdgh = cdgh, m[4];

		for (int g = 0; g < 16; g++) {
			__m128i msg;

			if (g < 4) {
				m[g] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * g)), bswap);
			} else {
				/* W[4g..4g+3] from W[4g-16..4g-1]: sigma0 terms (msg1),
				 * W[t-7] (the alignr), then the sigma1 terms (msg2). */
				__m128i w7 = _mm_alignr_epi8(m[(g - 1) & 3], m[(g - 2) & 3], 4);
				__m128i next = _mm_add_epi32(_mm_sha256msg1_epu32(m[g & 3], m[(g - 3) & 3]), w7);

				m[g & 3] = _mm_sha256msg2_epu32(next, m[(g - 1) & 3]);
			}
			msg = _mm_add_epi32(m[g & 3], _mm_loadu_si128((const __m128i *)&K[4 * g]));
			cdgh = _mm_sha256rnds2_epu32(cdgh, abef, msg);
			abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(msg, 0x0e));
		}
		abef = _mm_add_epi32(abef, save_abef);
		cdgh = _mm_add_epi32(cdgh, save_cdgh);
	}
	{
		__m128i feba = _mm_shuffle_epi32(abef, 0x1b);
		__m128i dchg = _mm_shuffle_epi32(cdgh, 0xb1);

		_mm_storeu_si128((__m128i *)&hs[0], _mm_blend_epi16(feba, dchg, 0xf0));
		_mm_storeu_si128((__m128i *)&hs[4], _mm_alignr_epi8(dchg, feba, 8));
	}
}

/* Asked once, and only for a long input: CPUID can cost a VM exit. */
static bool have_shani(void)
{
	static int known = -1;
	unsigned a, b, c, d;

	if (known < 0) {
		known = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSE4_1) && (c & bit_SSSE3) &&
			__get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_SHA);
	}
	return known;
}
#endif

/* Full blocks; the SHA extensions where the CPU has them and the input is
 * long enough to repay asking. */
static void compress_blocks(uint32_t hs[8], const uint8_t *p, size_t blocks)
{
#if defined(__x86_64__)
	if (blocks >= SHA_FAST_MIN_BLOCKS && !sha256_force_portable && have_shani()) {
		compress_shani(hs, p, blocks);
		return;
	}
#endif
	for (; blocks; blocks--, p += 64)
		compress(hs, p);
}

void sha256_init(struct sha256 *s)
{
	static const uint32_t iv[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
					0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };

	memcpy(s->h, iv, sizeof(iv));
	s->len = 0;
}

void sha256_update(struct sha256 *s, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t used = (size_t)(s->len % 64);

	s->len += len;
	if (used) {
		size_t take = 64 - used < len ? 64 - used : len;

		memcpy(s->block + used, p, take);
		p += take, len -= take;
		if (used + take < 64)
			return;
		compress(s->h, s->block);
	}
	compress_blocks(s->h, p, len / 64);
	p += len / 64 * 64;
	len %= 64;
	memcpy(s->block, p, len);
}

void sha256_final_hex(struct sha256 *s, char hex[65])
{
	uint64_t bits = s->len * 8;
	size_t used = (size_t)(s->len % 64);
	uint8_t pad[72] = { 0x80 };
	size_t n = (used < 56 ? 56 : 120) - used;  /* 0x80, zeros, up to 8 bytes short of a block */

	for (int i = 0; i < 8; i++)
		pad[n + i] = (uint8_t)(bits >> (56 - 8 * i));
	sha256_update(s, pad, n + 8);
	for (int i = 0; i < 8; i++)
		snprintf(hex + 8 * i, 9, "%08x", s->h[i]);
}

void sha256_hex(const void *data, size_t len, char hex[65])
{
	struct sha256 s;

	sha256_init(&s);
	sha256_update(&s, data, len);
	sha256_final_hex(&s, hex);
}
