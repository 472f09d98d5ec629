package mutate

import (
	"fmt"
)

// Paging: the list asked for with page sizes a client might send and a
// server might take badly. Every page is judged as a page (API-5: its
// links lead to the adjacent window at the same size); a size the server
// does not take is refused, never a server error.

// oddSizes are page sizes at and beyond what a list takes.
// A large one is 1000: a list without a cap answers that many, within
// the run's bounds on an answer.
var oddSizes = []string{"0", "-1", "1", "2147483648", "1.5", "x", "", "1000"}

var pagingOps = []Operator{
	{
		Name: "an odd page size", Family: FamilyPaging, Parts: []string{PartQuery}, Way: ByValue, On: OnList, As: Anyone,
		Source: "boundary-value analysis of a size parameter; OWASP API Security Top 10 2023, API4 (unrestricted resource consumption: page sizes)",
		Vary: func(r Request, env Env) []Variant {
			if env.SizeParam == "" {
				return nil
			}
			return each(oddSizes, func(size string) Variant {
				v := r.clone()
				q := v.URL.Query()
				q.Set(env.SizeParam, size)
				v.URL.RawQuery = q.Encode()
				return Variant{Request: v, What: fmt.Sprintf("%s=%q", env.SizeParam, size)}
			})
		},
	},
}
