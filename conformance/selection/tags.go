package selection

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// Default tag expressions (README, "The conformance suite"): a remote target
// is checked against what the specification states; the in-process reference
// server against everything but real-time waits.
const (
	RemoteTags    = "@spec && ~@local && ~@slow"
	InProcessTags = "~@slow"
	// ControlTags are RemoteTags plus the @clock scenarios (token validity,
	// LIM-1 and LIM-2, also their @ref expiry answers), which move the
	// clock: against a reference server whose control API the run can use
	// (CONTROL_URL), they run in seconds.
	ControlTags = "~@slow && ~@local,@clock && @spec,@clock"
)

// DefaultTags is the default tag expression of a run: against a
// deployment (remote) or the in-process reference server, with a control
// API that moves the deployment's clock (clock), and with the @slow
// scenarios (slow: -slow), which RemoteTags, InProcessTags and
// ControlTags leave out.
func DefaultTags(remote, clock, slow bool) string {
	switch {
	case remote && clock && slow:
		return "~@local,@clock && @spec,@clock"
	case remote && clock:
		return ControlTags
	case remote && slow:
		return "@spec && ~@local"
	case remote:
		return RemoteTags
	case slow:
		return ""
	}
	return InProcessTags
}

// ErrTags is wrapped by the errors of ParseTags and of a selection that
// names an unknown tag or selects nothing.
var ErrTags = errors.New("tags")

// TagExpr is a parsed tag expression. It reads godog's behat-style syntax
// ("@spec && ~@local", "@ref,@AUTH-6") and Cucumber's ("@spec and not
// (@local or @slow)"), and the two may be mixed: from the loosest to the
// tightest binding, "or" and "||", then "and" and "&&", then ",", then
// "not", "~" and "!". Each family so keeps its own precedence: in godog's,
// "," binds tighter than "&&"; in Cucumber's, "and" tighter than "or".
// The zero TagExpr matches every scenario.
type TagExpr struct {
	text string
	root *tagNode
}

// tagNode is a node of a parsed expression: a tag, or an operator.
type tagNode struct {
	op   string // "tag", "not", "and", "or"
	tag  string // with its @, for op "tag"
	args []*tagNode
}

// ParseTags parses a tag expression. An empty or blank one matches
// everything. The error says where the expression is wrong.
func ParseTags(expr string) (TagExpr, error) {
	if strings.TrimSpace(expr) == "" {
		return TagExpr{}, nil
	}
	toks, err := lexTags(expr)
	if err != nil {
		return TagExpr{}, fmt.Errorf("%w: %q: %w", ErrTags, expr, err)
	}
	p := &tagParser{toks: toks}
	root, err := p.parse(0)
	if err == nil && p.pos < len(p.toks) {
		err = fmt.Errorf("%q is not a tag, nor an operator after one", p.toks[p.pos])
		if p.toks[p.pos] == ")" {
			err = errors.New(`a ")" without its "("`)
		} else if isTagToken(p.toks[p.pos]) {
			err = fmt.Errorf(`%q follows a tag without an operator between them (use "&&" or "and", "," or "or")`, p.toks[p.pos])
		}
	}
	if err != nil {
		return TagExpr{}, fmt.Errorf("%w: %q: %w", ErrTags, expr, err)
	}
	return TagExpr{text: strings.TrimSpace(expr), root: root}, nil
}

// String returns the expression as it was written.
func (e TagExpr) String() string { return e.text }

// Empty reports whether e matches everything because it is empty.
func (e TagExpr) Empty() bool { return e.root == nil }

// Match reports whether a scenario with tags (each with its @) satisfies e.
func (e TagExpr) Match(tags []string) bool {
	if e.root == nil {
		return true
	}
	return e.root.match(tags)
}

// Names returns the tags e mentions, with their @, each once.
func (e TagExpr) Names() []string {
	var out []string
	var walk func(n *tagNode)
	walk = func(n *tagNode) {
		if n == nil {
			return
		}
		if n.op == "tag" && !slices.Contains(out, n.tag) {
			out = append(out, n.tag)
		}
		for _, a := range n.args {
			walk(a)
		}
	}
	walk(e.root)
	return out
}

// Mentions reports whether e names tag (with its @), positively or not.
func (e TagExpr) Mentions(tag string) bool { return slices.Contains(e.Names(), tag) }

// And returns e and more, both of which must hold.
func (e TagExpr) And(more TagExpr) TagExpr {
	switch {
	case more.root == nil:
		return e
	case e.root == nil:
		return more
	}
	left := e.text
	if e.root.op == "or" {
		left = "(" + left + ")"
	}
	right := more.text
	if more.root.op == "or" {
		right = "(" + right + ")"
	}
	return TagExpr{text: left + " && " + right, root: &tagNode{op: "and", args: []*tagNode{e.root, more.root}}}
}

// Godog returns e in godog v0.15's syntax, which has no parentheses: a
// conjunction ("&&") of alternatives (",") of tags or negated tags ("~"),
// that selects exactly the scenarios e matches. godog is given this form.
func (e TagExpr) Godog() (string, error) {
	if e.root == nil {
		return "", nil
	}
	cnf := e.root.cnf(false)
	if len(cnf) > maxClauses {
		return "", fmt.Errorf("%w: %q is too complex for godog's tag filter", ErrTags, e.text)
	}
	clauses := make([]string, len(cnf))
	for i, c := range cnf {
		clauses[i] = strings.Join(c, ",")
	}
	return strings.Join(clauses, " && "), nil
}

// requires reports whether e holds only when lit ("@tag" or "~@tag")
// does: whether lit is a clause of its conjunctive form alone.
func (e TagExpr) requires(lit string) bool {
	if e.root == nil {
		return false
	}
	for _, c := range e.root.cnf(false) {
		if len(c) == 1 && c[0] == lit {
			return true
		}
	}
	return false
}

// maxClauses bounds the conjunctive form of an expression.
const maxClauses = 256

func (n *tagNode) match(tags []string) bool {
	switch n.op {
	case "tag":
		return slices.Contains(tags, n.tag)
	case "not":
		return !n.args[0].match(tags)
	case "and":
		for _, a := range n.args {
			if !a.match(tags) {
				return false
			}
		}
		return true
	default: // or
		for _, a := range n.args {
			if a.match(tags) {
				return true
			}
		}
		return false
	}
}

// cnf returns n (negated when neg) as clauses that must all hold, each a
// list of literals of which one must: "@tag" or "~@tag".
func (n *tagNode) cnf(neg bool) [][]string {
	switch {
	case n.op == "tag" && neg:
		return [][]string{{"~" + n.tag}}
	case n.op == "tag":
		return [][]string{{n.tag}}
	case n.op == "not":
		return n.args[0].cnf(!neg)
	}
	conj := (n.op == "and") != neg // De Morgan
	if conj {
		var out [][]string
		for _, a := range n.args {
			out = append(out, a.cnf(neg)...)
			if len(out) > maxClauses {
				return out
			}
		}
		return out
	}
	out := [][]string{{}}
	for _, a := range n.args {
		var next [][]string
		for _, left := range out {
			for _, right := range a.cnf(neg) {
				next = append(next, append(append([]string{}, left...), right...))
				if len(next) > maxClauses {
					return next
				}
			}
		}
		out = next
	}
	return out
}

// lexTags cuts an expression into tags, operators and parentheses.
func lexTags(s string) ([]string, error) {
	var toks []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			i++
		case c == '(' || c == ')' || c == ',' || c == '~' || c == '!':
			toks = append(toks, string(c))
			i++
		case strings.HasPrefix(s[i:], "&&") || strings.HasPrefix(s[i:], "||"):
			toks = append(toks, s[i:i+2])
			i += 2
		case c == '&' || c == '|':
			return nil, fmt.Errorf("%q at %d: write %q", string(c), i+1, strings.Repeat(string(c), 2))
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \t\n(),~!&|", rune(s[j])) {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		}
	}
	return toks, nil
}

func isTagToken(t string) bool { return strings.HasPrefix(t, "@") && len(t) > 1 }

// tagParser is a precedence-climbing parser over the tokens of lexTags.
type tagParser struct {
	toks []string
	pos  int
}

// levels are the binary operators, loosest first.
var levels = [][]string{{"or", "||"}, {"and", "&&"}, {","}}

func (p *tagParser) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return ""
}

func (p *tagParser) parse(level int) (*tagNode, error) {
	if level == len(levels) {
		return p.unary()
	}
	left, err := p.parse(level + 1)
	if err != nil {
		return nil, err
	}
	op := "and"
	if level != 1 {
		op = "or"
	}
	node := left
	for slices.Contains(levels[level], strings.ToLower(p.peek())) {
		sym := p.toks[p.pos]
		p.pos++
		if p.peek() == "" {
			return nil, fmt.Errorf("%q at the end has nothing after it", sym)
		}
		right, err := p.parse(level + 1)
		if err != nil {
			return nil, err
		}
		if node == left {
			node = &tagNode{op: op, args: []*tagNode{left}}
		}
		node.args = append(node.args, right)
	}
	return node, nil
}

func (p *tagParser) unary() (*tagNode, error) {
	t := p.peek()
	switch {
	case t == "":
		if p.pos == 0 {
			return nil, errors.New("no tag")
		}
		return nil, fmt.Errorf("%q at the end has nothing after it", p.toks[p.pos-1])
	case t == "~" || t == "!" || strings.EqualFold(t, "not"):
		p.pos++
		if p.peek() == "" {
			return nil, fmt.Errorf("%q at the end has nothing after it", t)
		}
		arg, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &tagNode{op: "not", args: []*tagNode{arg}}, nil
	case t == "(":
		p.pos++
		inner, err := p.parse(0)
		if err != nil {
			return nil, err
		}
		if p.peek() != ")" {
			return nil, errors.New(`a "(" without its ")"`)
		}
		p.pos++
		return inner, nil
	case isTagToken(t):
		p.pos++
		return &tagNode{op: "tag", tag: t}, nil
	case t == ")":
		return nil, errors.New(`a ")" where a tag was expected`)
	case slices.Contains([]string{"&&", "||", ","}, t) || strings.EqualFold(t, "and") || strings.EqualFold(t, "or"):
		return nil, fmt.Errorf("%q where a tag was expected", t)
	case isWord(t):
		return nil, fmt.Errorf("%q is not a tag: tags start with @ (@%s)", t, t)
	default:
		return nil, fmt.Errorf("%q is not a tag", t)
	}
}

func isWord(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_' {
			return false
		}
	}
	return s != ""
}
