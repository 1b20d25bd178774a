// Package fleet runs one benchmark from many client machines: agents
// (benchtop agent) run the engine next to a database client each, and one
// coordinator (benchtop run ... --agents) sends them the same validated
// run, starts them at one instant, merges interval k of every agent
// exactly (HDR histograms added bucket by bucket, never averaged) into the
// Snapshots the screen and the reports already take, and fans the live
// controls out.
//
// The protocol is framed JSON over any byte stream (TCP, TLS, an ssh
// channel's stdio): a 4-byte big-endian length, then one JSON envelope
// {"type": ..., "body": ...}. The agent speaks first (hello: protocol
// version, histogram range, a nonce); the coordinator proves it holds the
// shared token with an HMAC over both nonces, the agent proves it back,
// and only then does the run (with any database credentials) cross. See
// wire.go for the messages in order.
package fleet
