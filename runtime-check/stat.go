package runtimecheck

import (
	"math"
	"sort"
	"time"
)

// Stat summarises repeated timings in microseconds. The spread is P10–P90: a median with
// its middle 80% says more about a driver call than a mean, which one page fault can skew.
type Stat struct {
	Median float64 `json:"median"`
	P10    float64 `json:"p10"`
	P90    float64 `json:"p90"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	N      int     `json:"n"`
}

func newStat(samples []time.Duration) Stat {
	if len(samples) == 0 {
		return Stat{}
	}
	us := make([]float64, len(samples))
	for i, s := range samples {
		us[i] = float64(s) / float64(time.Microsecond)
	}
	return statOf(us)
}

func statOf(us []float64) Stat {
	if len(us) == 0 {
		return Stat{}
	}
	v := append([]float64(nil), us...)
	sort.Float64s(v)
	return Stat{
		Median: quantile(v, 0.5),
		P10:    quantile(v, 0.1),
		P90:    quantile(v, 0.9),
		Min:    v[0],
		Max:    v[len(v)-1],
		N:      len(v),
	}
}

// quantile interpolates linearly between order statistics of sorted v.
func quantile(v []float64, q float64) float64 {
	if len(v) == 1 {
		return v[0]
	}
	pos := q * float64(len(v)-1)
	lo := int(math.Floor(pos))
	hi := int(math.Ceil(pos))
	return v[lo] + (v[hi]-v[lo])*(pos-float64(lo))
}
