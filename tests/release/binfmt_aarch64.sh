# shellcheck shell=sh
# Lets this machine run arm64 programs, in containers too, through qemu-user
# (Debian's qemu-user-static) and binfmt_misc, without systemd-binfmt or
# binfmt-support; and undoes exactly what it did.  Source it.
#   binfmt_aarch64_up     mounts binfmt_misc where it is not mounted, and
#                         registers an aarch64 handler with the F flag where
#                         no enabled one with F is registered; says which.
#                         Returns 2 where the kernel has no binfmt_misc or the
#                         machine has it disabled (a skip: the machine lacks the
#                         feature), 1 on any other failure
#   binfmt_aarch64_down   removes the handler it registered and unmounts
#                         binfmt_misc if it mounted it; nothing else
# The F (fix-binary) flag makes the kernel open the interpreter once, at
# registration, so that it runs in a container whose filesystem has no qemu.
# The magic and mask are the package's own (/usr/share/binfmts/qemu-aarch64,
# binfmt-support's format); the handler has a name of its own, so that removing
# it can never remove one that someone else registered.
BINFMT_DIR=/proc/sys/fs/binfmt_misc
BINFMT_NAME=cli-sandbox-test-aarch64
BINFMT_QEMU=/usr/bin/qemu-aarch64-static
BINFMT_DEF=/usr/share/binfmts/qemu-aarch64
binfmt_mounted_by_us=0
binfmt_registered_by_us=0

binfmt_field() {  # binfmt_field KEY: the value of KEY in the package's definition
	sed -n "s/^$1 //p" "$BINFMT_DEF"
}

binfmt_aarch64_handler() {  # prints the enabled handler with F for aarch64's magic, if any
	want=$(binfmt_field magic | sed 's/\\x//g' | tr 'A-F' 'a-f')
	for e in "$BINFMT_DIR"/*; do
		case ${e##*/} in register | status) continue ;; esac
		[ -f "$e" ] || continue
		head -n 1 "$e" | grep -qx enabled || continue
		grep -qx "magic $want" "$e" || continue
		grep -q '^flags: .*F' "$e" || continue
		echo "${e##*/}"
		return 0
	done
	return 1
}

binfmt_aarch64_up() {
	{ [ -x "$BINFMT_QEMU" ] && [ -r "$BINFMT_DEF" ]; } ||
		{ echo "binfmt: $BINFMT_QEMU or $BINFMT_DEF is missing: install qemu-user-static (tests/install-deps.sh)" >&2; return 1; }
	if [ ! -e "$BINFMT_DIR/register" ]; then
		grep -qw binfmt_misc /proc/filesystems ||
			{ echo "binfmt: this kernel has no binfmt_misc (CONFIG_BINFMT_MISC): arm64 programs cannot run here" >&2; return 2; }
		mount -t binfmt_misc binfmt_misc "$BINFMT_DIR" || return 1
		binfmt_mounted_by_us=1
		echo "binfmt: mounted binfmt_misc on $BINFMT_DIR"
	fi
	grep -qx enabled "$BINFMT_DIR/status" ||
		{ echo "binfmt: binfmt_misc is disabled ($BINFMT_DIR/status); it is the machine's setting, left alone" >&2; return 2; }
	if h=$(binfmt_aarch64_handler); then
		echo "binfmt: reusing the aarch64 handler registered as $h"
		return 0
	fi
	printf ':%s:M:%s:%s:%s:%s:F' "$BINFMT_NAME" "$(binfmt_field offset)" \
		"$(binfmt_field magic)" "$(binfmt_field mask)" "$BINFMT_QEMU" >"$BINFMT_DIR/register" || return 1
	binfmt_registered_by_us=1
	binfmt_aarch64_handler >/dev/null ||
		{ echo "binfmt: registered $BINFMT_NAME but the kernel does not show it enabled with F" >&2; return 1; }
	echo "binfmt: registered $BINFMT_NAME ($BINFMT_QEMU, flags F)"
}

binfmt_aarch64_down() {
	if [ "$binfmt_registered_by_us" = 1 ] && [ -e "$BINFMT_DIR/$BINFMT_NAME" ]; then
		echo -1 >"$BINFMT_DIR/$BINFMT_NAME" && binfmt_registered_by_us=0
	fi
	if [ "$binfmt_mounted_by_us" = 1 ]; then
		umount "$BINFMT_DIR" && binfmt_mounted_by_us=0
	fi
}
