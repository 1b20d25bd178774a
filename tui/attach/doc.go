// Package attach lets a terminal take up a running benchtop's live
// screen again, as tmux attach does: every interactive run listens on a
// Unix socket of its own, ID.sock (ID the process ID), 0600 in a 0700
// folder of the user's ($XDG_RUNTIME_DIR/benchtop, else
// ~/.local/state/benchtop/run: Dir). `benchtop attach --list` describes
// the runs there (List); `benchtop attach ID` shows a run's screen with
// every key (Attach), d detaching it again. The run that lost its own
// terminal (SIGHUP: a dropped SSH session) is the main case.
//
// Only the user who started the run may attach: the folder and socket
// modes keep others out, and the server asks the kernel who connected
// (SO_PEERCRED) and refuses any other user, root included. A socket whose
// run died without removing it is removed when found (its process is
// gone, or nobody listens); an entry that is not a socket is never
// followed nor used.
//
// Files: proto.go (the frames on the socket), dir.go (the folder, the
// list, stale sockets), server.go (the run's side: Listen, the attached
// screens as bubbletea programs over the connection, the run's end),
// client.go (the attaching terminal: raw mode, keys, window sizes,
// always restored).
package attach
