#include "netfilter/render.h"

#include <stdlib.h>
#include <string.h>

#define CS_STR_(x) #x
#define CS_STR(x) CS_STR_(x)

static void print_prefix(FILE *out, struct nf_prefix p)
{
	char b[IPV4_TEXT_MAX];

	if (p.len == 32)
		fprintf(out, "%s", ipv4_to_string(p.addr, b));
	else
		fprintf(out, "%s/%u", ipv4_to_string(p.addr, b), p.len);
}

/* nft's own order and names for ct state bits. */
static const struct { uint32_t bit; const char *name; } ct_states[] = {
	{ NF_CT_INVALID, "invalid" }, { NF_CT_ESTABLISHED, "established" },
	{ NF_CT_RELATED, "related" }, { NF_CT_NEW, "new" }, { NF_CT_UNTRACKED, "untracked" },
};

static void print_match(FILE *out, const struct nf_ruleset *rs, const struct nf_match *m)
{
	const char *sep = "";

	switch (m->kind) {
	case MATCH_IIF: fprintf(out, "iif \"%s\"", m->u.ifname); break;
	case MATCH_OIF: fprintf(out, "oif \"%s\"", m->u.ifname); break;
	case MATCH_L4PROTO: fprintf(out, "meta l4proto %s", nf_l4proto_name(m->u.l4proto)); break;
	case MATCH_CT_STATE:
		fputs("ct state ", out);
		for (size_t i = 0; i < sizeof(ct_states) / sizeof(ct_states[0]); i++)
			if (m->u.ct_state_mask & ct_states[i].bit) {
				fprintf(out, "%s%s", sep, ct_states[i].name);
				sep = ",";
			}
		break;
	case MATCH_IP_SADDR: fputs("ip saddr ", out); print_prefix(out, m->u.prefix); break;
	case MATCH_IP_DADDR: fputs("ip daddr ", out); print_prefix(out, m->u.prefix); break;
	case MATCH_IP_DADDR_SET: fprintf(out, "ip daddr @%s", rs->sets[m->u.set_index].name); break;
	case MATCH_DPORT:
		fprintf(out, "%s dport %u", nf_l4proto_name(m->u.dport.l4proto), m->u.dport.port);
		break;
	case MATCH_CT_ORIG_DADDR: fputs("ct original ip daddr ", out); print_prefix(out, m->u.prefix); break;
	case MATCH_CT_ORIG_DPORT: fprintf(out, "ct original proto-dst %u", m->u.port); break;
	case MATCH_SKUID: fprintf(out, "meta skuid %u", m->u.uid); break;
	case MATCH_SKUID_NOT: fprintf(out, "meta skuid != %u", m->u.uid); break;
	case MATCH_DADDR_TCP_DPORT_SET:
		fprintf(out, "ip daddr . tcp dport @%s", rs->sets[m->u.set_index].name);
		break;
	}
}

static const char *verdict_text(enum nf_verdict v)
{
	switch (v) {
	case NF_VERDICT_ACCEPT: return "accept";
	case NF_VERDICT_DROP: return "drop";
	case NF_VERDICT_REJECT_ADMIN: return "reject with icmpx admin-prohibited";
	case NF_VERDICT_REJECT_RESET: return "reject with tcp reset";
	case NF_VERDICT_LOG:
		return "limit rate " CS_STR(NF_LOG_RATE) "/second burst " CS_STR(NF_LOG_BURST)
		       " packets log group " CS_STR(NF_LOG_GROUP) " snaplen " CS_STR(NF_LOG_SNAPLEN);
	}
	return "drop";
}

/* An interval element as nft writes it: address, prefix, or first-last. */
/* An interval element as nft writes it: address, prefix, or first-last.
 * Formatted by hand and written once: large sets have tens of thousands. */
static void print_range(FILE *out, const char *sep, struct ipv4_range r)
{
	char buf[64];
	size_t n = strlen(sep);
	uint8_t len;

	memcpy(buf, sep, n);
	n += strlen(ipv4_to_string(r.first, buf + n));
	if (r.first != r.last && ipv4_range_is_prefix(r, &len)) {
		buf[n++] = '/';
		if (len >= 10)
			buf[n++] = (char)('0' + len / 10);
		buf[n++] = (char)('0' + len % 10);
	} else if (r.first != r.last) {
		buf[n++] = '-';
		n += strlen(ipv4_to_string(r.last, buf + n));
	}
	fwrite(buf, 1, n, out);
}

static void print_set(FILE *out, const struct nf_set *s)
{
	if (s->dynamic) {  /* its definition only: the resolver adds the elements */
		fprintf(out, "\tset %s {\n\t\ttype ipv4_addr . inet_service\n\t\tflags timeout\n\t\ttimeout %us\n\t\tsize %u\n\t}\n",
			s->name, s->timeout_s, s->size);
		return;
	}
	fprintf(out, "\tset %s {\n\t\ttype ipv4_addr\n\t\tflags interval\n", s->name);
	if (s->n_elems) {
		fputs("\t\telements = {", out);
		for (size_t i = 0; i < s->n_elems; i++)
			print_range(out, i == 0 ? " " : (i % 4 == 0 ? ",\n\t\t\t     " : ", "), s->elems[i]);
		fputs(" }\n", out);
	}
	fputs("\t}\n", out);
}

int render_nft(const struct nf_ruleset *rs, FILE *out)
{
	fprintf(out, "table inet %s\ndelete table inet %s\ntable inet %s {\n",
		rs->table, rs->table, rs->table);
	for (size_t i = 0; i < rs->n_sets; i++) {
		if (rs->sets[i].comment[0])
			fprintf(out, "\t# %s\n", rs->sets[i].comment);
		print_set(out, &rs->sets[i]);
		fputc('\n', out);
	}
	for (size_t i = 0; i < rs->n_chains; i++) {
		const struct nf_chain *c = &rs->chains[i];

		fprintf(out, "%s\tchain %s {\n\t\ttype filter hook %s priority ", i ? "\n" : "",
			c->name, nf_hook_name(c->hook));
		if (c->priority == 0)
			fputs("filter", out);
		else
			fprintf(out, "%d", c->priority);
		fprintf(out, "; policy %s;\n", c->policy == NF_VERDICT_ACCEPT ? "accept" : "drop");
		for (size_t j = 0; j < c->n_rules; j++) {
			const struct nf_rule *r = &c->rules[j];

			if (r->comment[0])
				fprintf(out, "\t\t# %s\n", r->comment);
			fputs("\t\t", out);
			for (size_t k = 0; k < r->n_matches; k++) {
				print_match(out, rs, &r->matches[k]);
				fputc(' ', out);
			}
			fprintf(out, "%s\n", verdict_text(r->verdict));
		}
		fputs("\t}\n", out);
	}
	fputs("}\n", out);
	return ferror(out) ? -1 : 0;
}

char *render_nft_string(const struct nf_ruleset *rs)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc;

	if (!f)
		return NULL;
	rc = render_nft(rs, f);
	if (fclose(f) != 0 || rc != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}
