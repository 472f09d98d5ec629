package explore

import (
	"encoding/json"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"eventsvc/conformance/jsonvalue"
)

// Generated data: the texts, dates and numbers a sequence writes into the
// target's accepted event body. The target may refuse any of them (the
// specification leaves validation open); what it accepts must read back as
// written.

// fragments are the pieces generated texts are made of: scripts written
// in each direction, characters made of several code points, emoji, and
// the characters a careless encoder mangles.
var fragments = []string{
	"Conference",
	"Ärger Öl Straße",
	"Ωμέγα λόγος",
	"Москва зима",
	"東京 会議",
	"مؤتمر القاهرة",
	"כנס תל אביב",
	"सम्मेलन दिल्ली",
	"🎉🎸 👩‍💻 🇯🇵",
	"e\u0301te\u0301 a\u0308",
	"  spaced  ",
	"tab\tand\nnewline",
	`quote " backslash \ <b>tag</b> & amp`,
	"100% + 50‰ = ½",
}

// maxNameLen is the length, in characters, of the longest name the
// generator writes: the reference server's limit (docs/reference-choices.md).
// A target with a lower limit refuses the longer ones, which is its right.
const maxNameLen = 255

// maxTextLen is the length of the longest other text it writes.
const maxTextLen = 255

// genText returns a text of at most limit characters: a few fragments,
// or, one time in four, text padded to exactly limit characters.
func genText(rng *rand.Rand, limit int) string {
	if limit <= 0 {
		return ""
	}
	var parts []string
	for n := 1 + rng.IntN(3); n > 0; n-- {
		parts = append(parts, fragments[rng.IntN(len(fragments))])
	}
	text := strings.Join(parts, " ")
	if rng.IntN(4) == 0 {
		pad := []rune(fragments[rng.IntN(len(fragments))])
		r := []rune(text)
		for i := 0; len(r) < limit; i++ {
			r = append(r, pad[i%len(pad)])
		}
		text = string(r)
	}
	if r := []rune(text); len(r) > limit {
		text = string(r[:limit])
	}
	return text
}

// boundaryTimes are instants a careless store or formatter gets wrong: a
// leap day, the ends of years and of 32-bit seconds, an hour that does
// not exist where clocks go forward, a fraction of a second.
var boundaryTimes = []string{
	"2028-02-29T23:59:59",
	"2026-12-31T23:59:59",
	"2038-01-19T03:14:07",
	"2027-03-28T02:30:00",
	"2099-12-31T12:00:00",
	"2026-11-25T10:00:00.5",
	"2030-06-30T00:00:00",
}

// boundaryNumbers are counts at the edges of what stores hold.
var boundaryNumbers = []float64{0, 1, 99, 255, 256, 65535, 65536, 2147483647}

// timeFields returns the fields of body that hold date-times, in name
// order, and the earliest of them.
func timeFields(body map[string]any) ([]string, time.Time) {
	var fields []string
	var first time.Time
	for _, k := range slices.Sorted(maps.Keys(body)) {
		s, ok := body[k].(string)
		if !ok {
			continue
		}
		if t, ok := jsonvalue.ParseTime(s); ok && strings.Contains(s, "T") {
			fields = append(fields, k)
			if first.IsZero() || t.Before(first) {
				first = t
			}
		}
	}
	return fields, first
}

// genChanges returns changes to base: a new name, one time in two, and
// up to two other fields: texts of every script, all the date-times moved
// together to a boundary (so that their order stays), counts at the
// edges. The name keeps the marks of the run (mark), as every name the
// suite writes does.
func genChanges(rng *rand.Rand, base map[string]any, mark string) map[string]any {
	changes := map[string]any{}
	if rng.IntN(2) == 0 {
		changes["name"] = genText(rng, maxNameLen-len([]rune(mark))) + mark
	}
	times, first := timeFields(base)
	var texts, counts []string
	for _, k := range slices.Sorted(maps.Keys(base)) {
		switch base[k].(type) {
		case string:
			if k != "name" && !slices.Contains(times, k) {
				texts = append(texts, k)
			}
		case float64, json.Number:
			counts = append(counts, k)
		}
	}
	for n := rng.IntN(3); n > 0; n-- {
		switch rng.IntN(3) {
		case 0:
			if len(texts) > 0 {
				changes[texts[rng.IntN(len(texts))]] = genText(rng, maxTextLen)
			}
		case 1:
			if len(times) > 0 {
				target, _ := jsonvalue.ParseTime(boundaryTimes[rng.IntN(len(boundaryTimes))])
				shift := target.Sub(first)
				for _, f := range times {
					t, _ := jsonvalue.ParseTime(base[f].(string))
					changes[f] = formatLike(base[f].(string), t.Add(shift))
				}
			}
		default:
			if len(counts) > 0 {
				changes[counts[rng.IntN(len(counts))]] = boundaryNumbers[rng.IntN(len(boundaryNumbers))]
			}
		}
	}
	if len(changes) == 0 {
		changes["name"] = genText(rng, 40) + mark
	}
	return changes
}

// formatLike writes t the way like is written: with or without an offset,
// with a fraction of a second only when t has one.
func formatLike(like string, t time.Time) string {
	layout := "2006-01-02T15:04:05.999999999"
	if len(like) > 19 && (strings.HasSuffix(like, "Z") || strings.ContainsAny(like[19:], "+-")) {
		layout = time.RFC3339Nano
		return t.Format(layout)
	}
	return t.UTC().Format(layout)
}

// withChanges is base with changes applied.
func withChanges(base map[string]any, changes map[string]any) map[string]any {
	body := maps.Clone(base)
	maps.Copy(body, changes)
	return body
}
