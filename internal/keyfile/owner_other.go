//go:build !unix

package keyfile

import "io/fs"

// enforced: file modes mean nothing here (Windows has ACLs), so nothing
// is refused.
const enforced = false

func ownedByMe(fs.FileInfo) bool { return true }
