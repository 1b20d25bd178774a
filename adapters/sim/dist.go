package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// The service-time distributions (sim.service).
const (
	Exp       = "exp"       // exponential: cv 1, the M/M/c server's
	LogNormal = "lognormal" // heavy right tail, cv from sim.service.cv (default 1)
	Gamma     = "gamma"     // cv from sim.service.cv (default 0.5): an Erlang-like light tail
	Uniform   = "uniform"   // flat around the mean, cv from sim.service.cv (default 1/√3: 0 to 2× the mean)
	Const     = "const"     // every operation takes exactly the mean (cv 0)
)

// distNames lists the distributions as sim.service allows them.
var distNames = []string{Exp, LogNormal, Gamma, Uniform, Const}

// defaultCV is the coefficient of variation (standard deviation / mean) a
// distribution has when sim.service.cv is not given.
func defaultCV(kind string) float64 {
	switch kind {
	case Exp, LogNormal:
		return 1
	case Gamma:
		return 0.5
	case Uniform:
		return 1 / math.Sqrt(3)
	}
	return 0
}

// maxUniformCV is the largest cv a uniform distribution on [0, 2m] has:
// beyond it some service times would be negative.
var maxUniformCV = 1 / math.Sqrt(3)

// Service is a service-time distribution: its kind, its mean and its
// coefficient of variation (standard deviation / mean). Draws are in
// nanoseconds of one unit of work (a point read, an update, an insert, a
// delete; a scan costs more, see Config.ScanRow).
type Service struct {
	Kind string
	Mean time.Duration
	CV   float64
}

// sampler draws service times of one Service. Its parameters are worked
// out once (newSampler), so that a draw is a few floating-point
// operations.
type sampler struct {
	kind string
	mean float64 // ns
	// lognormal: mu, sigma of the underlying normal; gamma: shape k and
	// scale theta (Marsaglia and Tsang's d and c in gd, gc); uniform: the
	// half width.
	mu, sigma float64
	k, theta  float64
	gd, gc    float64
	half      float64
}

func newSampler(s Service) (*sampler, error) {
	m := float64(s.Mean)
	if m <= 0 {
		return nil, fmt.Errorf("sim: a mean service time > 0 is needed, not %v", s.Mean)
	}
	sp := &sampler{kind: s.Kind, mean: m}
	switch s.Kind {
	case Exp, Const:
	case LogNormal:
		if s.CV <= 0 {
			return nil, fmt.Errorf("sim: lognormal needs a cv > 0, not %g", s.CV)
		}
		v := math.Log1p(s.CV * s.CV)
		sp.sigma = math.Sqrt(v)
		sp.mu = math.Log(m) - v/2
	case Gamma:
		if s.CV <= 0 {
			return nil, fmt.Errorf("sim: gamma needs a cv > 0, not %g", s.CV)
		}
		sp.k = 1 / (s.CV * s.CV)
		sp.theta = m * s.CV * s.CV
		k := sp.k
		if k < 1 {
			k++ // boosted: see draw
		}
		sp.gd = k - 1.0/3
		sp.gc = 1 / math.Sqrt(9*sp.gd)
	case Uniform:
		if s.CV < 0 || s.CV > maxUniformCV+1e-12 {
			return nil, fmt.Errorf("sim: uniform needs a cv from 0 to %.4f, not %g", maxUniformCV, s.CV)
		}
		sp.half = math.Sqrt(3) * s.CV * m
	default:
		return nil, fmt.Errorf("sim: unknown service distribution %q", s.Kind)
	}
	return sp, nil
}

// draw returns one service time in ns (float: the queue's arithmetic
// rounds once, when it adds it to a time).
func (sp *sampler) draw(r *rand.Rand) float64 {
	switch sp.kind {
	case Exp:
		return r.ExpFloat64() * sp.mean
	case LogNormal:
		return math.Exp(sp.mu + sp.sigma*r.NormFloat64())
	case Gamma:
		return sp.gamma(r) * sp.theta
	case Uniform:
		return sp.mean - sp.half + 2*sp.half*r.Float64()
	}
	return sp.mean
}

// gamma draws from Gamma(k, 1) by Marsaglia and Tsang's method ("A simple
// method for generating gamma variables", 2000); for k < 1 it draws
// Gamma(k+1) and multiplies by U^(1/k).
func (sp *sampler) gamma(r *rand.Rand) float64 {
	for {
		x := r.NormFloat64()
		v := 1 + sp.gc*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := r.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+sp.gd*(1-v+math.Log(v)) {
			g := sp.gd * v
			if sp.k < 1 {
				g *= math.Pow(r.Float64(), 1/sp.k)
			}
			return g
		}
	}
}
