#include "base/resident.h"

#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <malloc.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Text relocations would have written into a read-only segment. */
static int has_textrel(const struct dl_phdr_info *info)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Dyn) *d;

		if (info->dlpi_phdr[i].p_type != PT_DYNAMIC)
			continue;
		for (d = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr); d->d_tag != DT_NULL; d++)
			if (d->d_tag == DT_TEXTREL || (d->d_tag == DT_FLAGS && (d->d_un.d_val & DF_TEXTREL)))
				return 1;
	}
	return 0;
}

/* PT_LOAD segments without PF_W hold nothing but the file's bytes (RELRO,
 * which relocation writes, lies in a writable segment), so dropping their
 * pages loses nothing. */
static int drop_read_only(struct dl_phdr_info *info, size_t size, void *data)
{
	uintptr_t page = (uintptr_t)*(long *)data;

	(void)size;
	if ((info->dlpi_name && strstr(info->dlpi_name, "linux-vdso")) || has_textrel(info))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start, end;

		if (ph->p_type != PT_LOAD || (ph->p_flags & PF_W) || ph->p_memsz == 0)
			continue;
		start = (info->dlpi_addr + ph->p_vaddr) & ~(page - 1);
		end = (info->dlpi_addr + ph->p_vaddr + ph->p_memsz + page - 1) & ~(page - 1);
		(void)madvise((void *)start, end - start, MADV_DONTNEED);
	}
	return 0;
}

/* The stack below the caller's frame (less a margin) holds only the dead
 * frames of the start; its pages go, and come back zeroed if ever needed. */
static void drop_dead_stack(uintptr_t page)
{
	uintptr_t lo = 0, hi = 0, sp = (uintptr_t)__builtin_frame_address(0);
	char line[256];
	FILE *f = fopen("/proc/self/maps", "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[stack]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2)
			break;
	fclose(f);
	sp = (sp & ~(page - 1)) - 16 * page;  /* the frames still in use, and room */
	if (lo && sp > lo && sp < hi)
		(void)madvise((void *)lo, sp - lo, MADV_DONTNEED);
}

void resident_shrink(void)
{
	long page = sysconf(_SC_PAGESIZE);

	malloc_trim(0);
	if (page <= 0)
		return;
	drop_dead_stack((uintptr_t)page);
	dl_iterate_phdr(drop_read_only, &page);
}
