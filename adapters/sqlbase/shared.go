package sqlbase

import (
	"context"
	"fmt"
	"sync"
)

// Shared is the part of a SQL adapter its dialect does not change: the
// table as the adapter knows it (made by a load when absent, checked
// against YCSB's layout), its description, its partitions, and closing
// the connections. An adapter embeds it, so that its Prepare, Describe,
// Partitions and Close are these.
type Shared struct {
	Cfg      Config
	Dialect  Dialect
	PartsSet bool   // the partitions property was given
	Name     string // the adapter's, for the load command in messages
	Server   string // the server's product and version, for Describe
	// Where is the server for messages (never the password).
	Where func() string
	// Create connects and creates the table (IF NOT EXISTS), returning it
	// as the server now describes it.
	Create func(ctx context.Context) (Table, error)
	// CloseConns closes the pool.
	CloseConns func()

	mu    sync.Mutex // table, and its creation
	table Table
}

// SetTable records the table found at Open: an existing one must have
// YCSB's layout for fieldcount.
func (s *Shared) SetTable(t Table) error {
	if t.Exists {
		if err := s.Cfg.Check(t, s.Dialect, s.PartsSet); err != nil {
			return err
		}
	}
	s.mu.Lock()
	s.table = t
	s.mu.Unlock()
	return nil
}

// Prepare creates the table for a load when it is absent, and refuses a
// run phase on an absent table.
func (s *Shared) Prepare(ctx context.Context, load bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.table.Exists {
		return nil
	}
	if !load {
		return s.Cfg.Absent(s.Where(), s.Name)
	}
	t, err := s.Create(ctx)
	if err != nil {
		return err
	}
	// Another client (a fleet's agent) may have made it first.
	if err := s.Cfg.Check(t, s.Dialect, s.PartsSet); err != nil {
		return err
	}
	s.table = t
	return nil
}

// Describe is the server, its version and the table.
func (s *Shared) Describe() string {
	s.mu.Lock()
	t := s.table
	s.mu.Unlock()
	return fmt.Sprintf("%s %s (%s), table %s", s.Name, s.Cfg.Where(), s.Server, s.Cfg.Describe(t))
}

// Partitions is the table's partitions (1 when it is not partitioned), or
// those it will have when the load creates it: the run's, fixed while it
// goes on.
func (s *Shared) Partitions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Cfg.PartitionsOf(s.table)
}

// Close closes the connections.
func (s *Shared) Close() error {
	s.CloseConns()
	return nil
}
