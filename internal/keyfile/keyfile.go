// Package keyfile refuses a file that holds a secret (a private key, a
// shared token) when others could read it or put their own in its place,
// as OpenSSH refuses an unprotected private key ("Permissions 0644 for
// 'id_ed25519' are too open") and, with StrictModes, a key file or folder
// others may write. Each refusal says what to run to fix it.
//
// The rules, for the file (symbolic links followed) and for every folder
// above it:
//   - a secret file owned by this user must have no permission for group
//     or others (mode & 0077 == 0: chmod 600), as OpenSSH's
//     sshkey_perm_ok asks; one owned by another user (a Kubernetes
//     Secret's root-owned file shared with the pod's group) is not held
//     to it, as OpenSSH does not;
//   - no file that Secret or Public checks may be writable by others
//     (mode & 0002), whoever owns it;
//   - no folder above it may be writable by others unless its sticky bit
//     is set (as /tmp's is: then only the owner may rename or remove what
//     is in it), so that nobody can swap the file for their own.
package keyfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Secret checks a file that holds a secret; what names it in the error
// ("--tls-key", "the SSH host key"). A file that does not exist is not
// refused here (the caller creates it, or fails to read it); its folders
// still are.
func Secret(what, path string) error {
	return check(what, path, true)
}

// Public checks a file whose contents decide who gets in (an
// authorized-keys file): others may read it, but not write it or its
// folders.
func Public(what, path string) error {
	return check(what, path, false)
}

func check(what, path string, secret bool) error {
	if !enforced {
		return nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, path, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("%s %s: %w", what, path, err)
	default:
		mode := fi.Mode().Perm()
		if secret && ownedByMe(fi) && mode&0o077 != 0 {
			return fmt.Errorf("%s %s: permissions %04o are too open: others can read or change the key (chmod 600 %s)", what, path, mode, path)
		}
		if mode&0o002 != 0 {
			return fmt.Errorf("%s %s: permissions %04o let anyone write it (chmod o-w %s)", what, path, mode, path)
		}
	}
	return folders(what, path, filepath.Dir(abs))
}

// folders refuses a folder, dir or one above it, that anyone may write
// without its sticky bit set.
func folders(what, path, dir string) error {
	for {
		fi, err := os.Stat(dir)
		if err == nil {
			m := fi.Mode()
			if m.Perm()&0o002 != 0 && m&fs.ModeSticky == 0 {
				return fmt.Errorf("%s %s: its folder %s (permissions %04o) lets anyone replace it (chmod o-w %s, or chmod 700 %s)", what, path, dir, m.Perm(), dir, dir)
			}
		}
		up := filepath.Dir(dir)
		if up == dir {
			return nil
		}
		dir = up
	}
}
