package main

import (
	"errors"
	"testing"
)

func TestParseWrkReadsTheRateAndTheErrors(t *testing.T) {
	out := `Running 5s test @ http://127.0.0.1:40000/api
  2 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.20ms    0.50ms  20.00ms   90.00%
    Req/Sec    25.00k     1.00k   27.00k    70.00%
  250000 requests in 5.00s, 100.00MB read
  Socket errors: connect 0, read 2, write 0, timeout 1
  Non-2xx or 3xx responses: 4
Requests/sec:  50012.34
Transfer/sec:     20.00MB
`
	r, err := parseWrk(out)
	if err != nil || r.Rate != 50012.34 || r.Errors != 7 {
		t.Fatalf("parseWrk = %+v, %v; want 50012.34 requests/s and 7 errors", r, err)
	}
	if _, err := parseWrk("unable to connect to 127.0.0.1:1 Connection refused\n"); !errors.Is(err, errNoResult) {
		t.Fatalf("no rate: err = %v", err)
	}
}

func TestInTurnTakesTheMedianRatioOfTheRounds(t *testing.T) {
	// a's rate doubles every measure; b's is 10.
	rate := 10.0
	a := func() (float64, error) { rate *= 2; return rate, nil }
	b := func() (float64, error) { return 10, nil }
	p, err := inTurn(3, a, b)
	if err != nil {
		t.Fatal(err)
	}
	if p.a != 40 || p.b != 10 || p.ratio != 4 || p.low != 2 || p.high != 8 {
		t.Fatalf("inTurn = %+v; want a 40, b 10, ratio 4 (2-8)", p)
	}
	if median([]float64{4, 1, 3, 2}) != 2.5 {
		t.Fatalf("median of 1 2 3 4 = %v", median([]float64{4, 1, 3, 2}))
	}
}
