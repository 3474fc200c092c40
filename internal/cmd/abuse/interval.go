package main

import (
	"math/rand/v2"
	"slices"
)

// bootstrapRounds is how many resamplings ratioInterval draws: enough
// that the interval's ends move by less than the figures' last printed
// digit from one seed to another.
const bootstrapRounds = 4000

// p99Of returns the p99 of the sorted samples ms as latencies.summary
// reads it: the sample at index n*99/100.
func p99Of(ms []float64) float64 {
	return ms[min(len(ms)-1, len(ms)*99/100)]
}

// ratioInterval returns a 95 % bootstrap interval for p99(under) /
// p99(base): both samples are drawn again with replacement, each to its
// own size, bootstrapRounds times, and the 2.5th and 97.5th percentiles
// of the ratios drawn are returned. With 300 requests a phase (-mode
// siege's pace) the p99 is the third-slowest, so one slow request more
// or less moves it; with 2,400 (-mode capacity's) the 24th. The interval
// says how far the point ratio would move in another run of the same
// length. The seed is fixed, so a report is reproducible from its
// samples. ok is false when either sample is empty or a p99 drawn from
// base is 0.
func ratioInterval(base, under []float64) (lo, hi float64, ok bool) {
	if len(base) == 0 || len(under) == 0 {
		return 0, 0, false
	}
	rng := rand.New(rand.NewPCG(1, 2))
	base, under = slices.Sorted(slices.Values(base)), slices.Sorted(slices.Values(under))
	counts := make([]int, max(len(base), len(under)))
	// draw returns the p99 of a resample of the sorted src without
	// building it: how often each of src's samples is drawn, then the
	// sample at the p99's rank, counted from the slowest down.
	draw := func(src []float64) float64 {
		n := len(src)
		c := counts[:n]
		clear(c)
		for range n {
			c[rng.IntN(n)]++
		}
		above := n - min(n-1, n*99/100) // the p99 and the samples after it
		for i := n - 1; ; i-- {
			if above -= c[i]; above <= 0 {
				return src[i]
			}
		}
	}
	ratios := make([]float64, 0, bootstrapRounds)
	for range bootstrapRounds {
		d := draw(base)
		if d <= 0 {
			return 0, 0, false
		}
		ratios = append(ratios, draw(under)/d)
	}
	slices.Sort(ratios)
	return ratios[bootstrapRounds*25/1000], ratios[bootstrapRounds*975/1000-1], true
}
