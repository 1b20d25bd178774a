package sim

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"benchtop/adapters"
)

// The properties the adapter reads (adapters.Driver.Keys).
const (
	PropCapacity   = "sim.capacity"
	PropLatency    = "sim.latency"
	PropServers    = "sim.servers"
	PropService    = "sim.service"
	PropCV         = "sim.service.cv"
	PropScanRow    = "sim.scanrow"
	PropStall      = "sim.stall"
	PropOutage     = "sim.outage"
	PropErrors     = "sim.errors"
	PropNotFound   = "sim.notfound"
	PropClientCost = "sim.clientcost"
	PropSeed       = "sim.seed"
	PropLoad       = "sim.load"
)

// Keys lists every property the adapter reads.
var Keys = []string{
	PropCapacity, PropLatency, PropServers, PropService, PropCV, PropScanRow,
	PropStall, PropOutage, PropErrors, PropNotFound, PropClientCost, PropSeed, PropLoad,
}

// Defaults.
const (
	DefaultCapacity = 50000
	DefaultLatency  = time.Millisecond
	DefaultScanRow  = 0.1
)

// Load modes (sim.load).
const (
	LoadInstant  = "instant"
	LoadModelled = "modelled"
)

// Config is an opened sim's configuration: the model, its faults and what
// the client burns.
type Config struct {
	Model Model
	// ClientCost is CPU burned on the calling goroutine per operation,
	// before it reaches the model (sim.clientcost): a client-side cost
	// the model does not count.
	ClientCost time.Duration
	// Load is how the load phase's inserts are served: LoadInstant (in
	// batches, outside the model) or LoadModelled (each an operation of
	// the model).
	Load string
}

// ReadConfig reads the sim.* properties as Open does, so that a test can
// build the oracle (Config.Model) of the server a command line opens. A
// bad value, or a contradictory combination of capacity, mean service
// time and servers, is a *adapters.ConfigError.
func ReadConfig(props adapters.Properties) (Config, error) {
	return readWith(adapters.NewReader(props), props)
}

// readWith is ReadConfig through r, which records the keys read (the
// driver's Keys are those).
func readWith(r *adapters.Reader, props adapters.Properties) (Config, error) {
	c := Config{}
	hasC, hasM, hasS := r.Has(PropCapacity), r.Has(PropLatency), r.Has(PropServers)
	capacity := r.Float(PropCapacity, DefaultCapacity, 1e-3, 1e9)
	mean := r.Duration(PropLatency, DefaultLatency, time.Millisecond, time.Microsecond, time.Hour)
	servers := r.Int(PropServers, 0, 1, 1_000_000)
	kind := r.Choice(PropService, Exp, distNames...)
	cv := defaultCV(kind)
	if r.Has(PropCV) {
		switch kind {
		case LogNormal, Gamma:
			cv = r.Float(PropCV, cv, 0.01, 100)
		case Uniform:
			cv = r.Float(PropCV, cv, 0, math.Floor(maxUniformCV*1e4)/1e4)
		default:
			r.Bad(PropCV, "a cv only with sim.service=lognormal, gamma or uniform ("+kind+"'s is "+strconv.FormatFloat(cv, 'g', -1, 64)+")")
		}
	}
	c.Model.ScanRow = r.Float(PropScanRow, DefaultScanRow, 0, 1e6)
	c.Model.Seed = uint64(r.Int64(PropSeed, 1, 0, math.MaxInt64))
	c.Model.Faults = Faults{
		Stalls:   parseWindows(r, PropStall),
		Outages:  parseWindows(r, PropOutage),
		Errors:   parseShares(r, PropErrors),
		NotFound: parseShares(r, PropNotFound),
	}
	c.ClientCost = r.Duration(PropClientCost, 0, time.Microsecond, 0, time.Second)
	c.Load = r.Choice(PropLoad, LoadInstant, LoadInstant, LoadModelled)
	if err := r.Err(); err != nil {
		return Config{}, err
	}
	s, m, err := size(capacity, mean, servers, hasC, hasM, hasS)
	if err != nil {
		return Config{}, err
	}
	if err := checkSize(props, s, m, hasC, hasM); err != nil {
		return Config{}, err
	}
	c.Model.Servers = s
	c.Model.Service = Service{Kind: kind, Mean: m, CV: cv}
	return c, nil
}

// sizeTolerance is how far (relative) the servers given may be from
// capacity × mean service time.
const sizeTolerance = 0.01

// size works out the number of servers and the mean service time from
// what was given, so that servers / mean is the capacity: what is given
// is kept (within sizeTolerance), what is not is derived; a default
// (capacity 50,000, mean 1 ms) gives way to what was given. Three values
// that disagree, or a capacity and mean that make a server count that is
// not a whole number >= 1, are refused.
func size(capacity float64, mean time.Duration, servers int, hasC, hasM, hasS bool) (int, time.Duration, error) {
	m := mean.Seconds()
	switch {
	case hasS && hasC && hasM:
		if x := capacity * m; math.Abs(float64(servers)-x) > sizeTolerance*x {
			return 0, 0, &adapters.ConfigError{Key: PropServers, Value: strconv.Itoa(servers),
				Allowed: fmt.Sprintf("%s × %s = %s servers, or leave one of %s, %s, %s unset",
					fmtNum(capacity), fmtDur(mean), fmtNum(x), PropCapacity, PropLatency, PropServers)}
		}
		return servers, mean, nil
	case hasS && hasC:
		return servers, secs(float64(servers) / capacity), nil
	case hasS:
		return servers, mean, nil
	case hasC && hasM:
		x := capacity * m
		s := math.Round(x)
		if s < 1 || math.Abs(s-x) > sizeTolerance*x {
			return 0, 0, &adapters.ConfigError{Key: PropLatency, Value: fmtDur(mean),
				Allowed: fmt.Sprintf("a mean service time that makes %s × it a whole number of servers >= 1 (it makes %s), such as %s; or give %s instead",
					fmtNum(capacity), fmtNum(x), fmtDur(secs(max(1, s)/capacity)), PropServers)}
		}
		return int(s), mean, nil
	case hasC:
		s := max(1, math.Round(capacity*m))
		return int(s), secs(s / capacity), nil
	}
	// The mean given or defaulted, the capacity defaulted.
	return int(max(1, math.Round(DefaultCapacity*m))), mean, nil
}

// MaxServers is the most servers a model has.
const MaxServers = 1_000_000

// checkSize refuses a size that size derived beyond the limits: more
// than MaxServers servers, or a mean service time under 1 µs.
func checkSize(props adapters.Properties, s int, m time.Duration, hasC, hasM bool) error {
	key := PropCapacity
	if !hasC && hasM {
		key = PropLatency
	}
	switch {
	case s > MaxServers:
		return &adapters.ConfigError{Key: key, Value: props[key], Allowed: fmt.Sprintf("a capacity and mean service time that make at most %d servers (these make %d)", MaxServers, s)}
	case m < time.Microsecond || m > time.Hour:
		return &adapters.ConfigError{Key: key, Value: props[key], Allowed: fmt.Sprintf("a mean service time from 1µs to 1h (servers / capacity makes %v)", m)}
	}
	return nil
}

func secs(f float64) time.Duration { return time.Duration(math.Round(f * 1e9)) }

// fmtNum writes a number shortly: 50000, 1.5, 0.1.
func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', 6, 64) }
