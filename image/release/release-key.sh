#!/bin/sh
# The key a build signs its images with (issue 24, docs/release.md), so that a
# plain `sh image/build.sh` ends with every image signed, by a key the person has.
#
#   sh image/release/release-key.sh SIGNING-DIR
#
# Prints one line: the key's fingerprint (public: it is what a policy's key
# file is checked against, and what `gpg --list-keys` shows).
#   - CLI_SANDBOX_SIGN_BY=FINGERPRINT: that key of the person's own GnuPG
#     (GNUPGHOME, else ~/.gnupg); it must have its secret part there.
#   - else the project's release key in SIGNING-DIR/gnupg (mode 700, under
#     build/, which git and the image's build context ignore), made there the
#     first time, without a passphrase: a build runs unattended, so the key is
#     as secret as that directory.  GNUPGHOME is not read then: a build never
#     signs with whatever key a person's keyring happens to hold first.
# Either way the public part is written to SIGNING-DIR/release-key.asc (the
# file a policy's keyPath names).  The secret part is never exported and
# nothing here prints it; gpg's messages go to the caller's stderr only when it
# fails (they name keys by fingerprint only).
set -eu
die() { echo "image/release/release-key.sh: $*" >&2; exit 1; }
[ $# -eq 1 ] || die "usage: sh image/release/release-key.sh SIGNING-DIR"
dir=$1
mkdir -p "$dir"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
gpg_() { gpg --batch --no-tty "$@" 2>>"$log" || { cat "$log" >&2; return 1; }; }

if [ -n "${CLI_SANDBOX_SIGN_BY:-}" ]; then
	fpr=$(gpg_ --with-colons --list-secret-keys -- "$CLI_SANDBOX_SIGN_BY" | awk -F: '/^fpr/ { print $10; exit }') || true
	[ -n "$fpr" ] || die "CLI_SANDBOX_SIGN_BY=$CLI_SANDBOX_SIGN_BY: no secret key of that name in ${GNUPGHOME:-~/.gnupg}: import it there, or unset CLI_SANDBOX_SIGN_BY to sign with the project's release key ($dir/gnupg)"
else
	GNUPGHOME=$dir/gnupg
	export GNUPGHOME
	mkdir -p "$GNUPGHOME"
	chmod 700 "$dir" "$GNUPGHOME"
	secret() { gpg_ --with-colons --list-secret-keys | awk -F: '/^fpr/ { print $10; exit }'; }
	fpr=$(secret)
	if [ -z "$fpr" ]; then
		# ed25519, signing only, no expiry: podman and CRI-O (gpgme) verify it.
		gpg_ --quiet --passphrase '' --quick-gen-key \
			"cli-sandbox release key ($(hostname 2>/dev/null || echo local)) <release@cli-sandbox.invalid>" \
			ed25519 sign never >/dev/null || die "gpg could not make the release key in $GNUPGHOME"
		fpr=$(secret)
		[ -n "$fpr" ] || die "gpg made no release key in $GNUPGHOME"
		echo "image/release/release-key.sh: made the release key $fpr in $GNUPGHOME (no passphrase; keep that directory private)" >&2
	fi
fi
gpg_ --armor --export -- "$fpr" >"$dir/release-key.asc.new" || die "cannot export the public part of $fpr"
[ -s "$dir/release-key.asc.new" ] || die "gpg exported nothing for $fpr"
mv "$dir/release-key.asc.new" "$dir/release-key.asc"
echo "$fpr"
