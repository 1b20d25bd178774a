//go:build unix

package keyfile

import (
	"io/fs"
	"os"
	"syscall"
)

// enforced: Unix file modes say who may read and write.
const enforced = true

// ownedByMe: the file's owner is this process's user.
func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return !ok || int(st.Uid) == os.Getuid()
}
