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
//
// Where each job lives:
//
//   - The protocol: wire.go (the messages in order, the framed Conn);
//     auth.go (tokens and the HMAC proofs); hash.go (the run's hash, the
//     same for every binary that resolves the run alike).
//   - The agent: agent.go (one session: handshake, the run on its own
//     engine.Runner, its intervals sent, the controls applied); listen.go
//     (listening on TCP/TLS or stdio); gate.go (what idle or hostile
//     connections cannot do: the authentication deadline, the bound on
//     those waiting, busy only once a coordinator authenticated); idle.go
//     (--idle-timeout: an agent no coordinator held for that long ends);
//     facts.go (what it says of its host).
//   - How the work is divided: split.go (each agent's properties: its
//     share of the operations, the target, the key range and the
//     partitions); shared.go (a stream whose server divides the
//     partitions among the agents).
//   - The coordinator: coord.go (the Coordinator, its agents' state, and
//     what it reports of each agent after the run); connect.go (reaching
//     every agent: dial, handshake, busy retries, clock offsets, the run
//     handed over; one failure calls the whole run off); ssh.go (an
//     agent started over ssh); controls.go (the engine.Controller: each
//     control checked by the engine's Validate functions, fanned out to
//     the agents and recorded as an event of the merged run); run.go
//     (Run: the start at one instant, and the loop that takes the agents'
//     messages, the controls and a tick); reader.go (one goroutine per
//     agent, decoding its messages for the loop).
//   - The merge: merge.go (the exact merge: interval k of every agent
//     summed and handed to an engine.Assembler, published as one
//     Snapshot); decode.go (the agents' encoded histograms summed without
//     a Histogram each); rows.go (the Agents panel's rows); loss.go (late
//     and lost agents: an interval published without a late agent and its
//     part merged when it comes; silence, errors and a stop not obeyed
//     that lose an agent; its share of the target redistributed);
//     results.go (the merged phases for the reports, during and after the
//     run).
package fleet
