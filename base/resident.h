/* Keeping a long-lived process small: PID 1 outlives its start by the
 * command's whole run, but needs only its supervision loop from then on. */
#ifndef CLI_SANDBOX_BASE_RESIDENT_H
#define CLI_SANDBOX_BASE_RESIDENT_H

/* Returns freed heap to the kernel (malloc_trim), discards the stack pages
 * below the caller's frame (the start's dead frames), and unmaps the
 * resident pages of every loaded object's read-only segments (code and
 * constants: clean file pages, refaulted from the page cache when touched
 * again), so RSS is what the caller goes on to use.  Writable segments and
 * the vDSO are left alone.  Call it from a shallow frame.  It cannot fail:
 * it only advises the kernel. */
void resident_shrink(void);

#endif
