// Package catalog holds the bundled snapshot of SnowLuma's OneBot actions:
// what each action takes, what it returns, whether it only reads, and how to
// call it. It performs no I/O beyond reading its embedded files.
//
// The source of truth is one JSON file per category under actions/, written
// in this project's own words. Load reads them, derives each action's
// inputSchema from its parameters, and indexes names and aliases.
package catalog

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/snowluma/snowluma-mcp/internal/validate"
)

// Version is the SnowLuma release this catalog describes.
const Version = "1.11.1"

//go:embed actions/*.json
var files embed.FS

// A Catalog is the loaded, indexed action set. It is immutable after Load
// and safe for concurrent use.
type Catalog struct {
	version    string
	categories []Category
	actions    []*Action          // in catalog order: by name
	byName     map[string]*Action // names and aliases

	// indexOnce is the search index, built on the first search.
	indexOnce func() *index
	// categoriesJSON is the categories' JSON, made on first use.
	categoriesJSON func() ([]byte, error)
}

// A Category groups actions. Name is SnowLuma's canonical (Chinese) name;
// Label is its English label.
type Category struct {
	Name  string `json:"category"`
	Label string `json:"label"`
	Count int    `json:"count"`
}

// An Action is one OneBot action: the complete contract get_action returns.
// Its Brief is the compact part that list and search return.
type Action struct {
	Brief
	// SummaryZh is the summary in Simplified Chinese, for the operators
	// who search in Chinese. Substring search matches it; it stays out of
	// the Brief so that the whole compact listing remains small enough to
	// repeat as text for hosts that read no structured content.
	SummaryZh   string   `json:"summaryZh"`
	Params      []Param  `json:"params"`
	Constraints []string `json:"constraints"`
	// Returns says in prose what a successful call's data holds.
	Returns string `json:"returns"`
	// ReturnsSchema describes a successful response's data (for streams,
	// each successful frame's data), never the OneBot envelope.
	ReturnsSchema json.RawMessage `json:"returnsSchema"`
	Examples      []Example       `json:"examples"`
	// InputSchema is derived from Params: an open object schema, so that
	// fields a newer SnowLuma accepts still pass through.
	InputSchema json.RawMessage `json:"inputSchema"`
	// StreamKind is how a stream action's answer travels; empty for an
	// action answered with one envelope. The files give it, and Stream
	// follows from it.
	StreamKind StreamKind `json:"streamKind,omitempty"`

	// compiled is InputSchema compiled on first use by CheckParams.
	compiled func() (*validate.ObjectSchema, error)
	// encoded is the action's JSON, made on first use by JSON and
	// BriefJSON.
	encoded func() (encodings, error)
}

// encodings are an action's two JSON forms.
type encodings struct{ brief, full []byte }

// A StreamKind is how a stream action's answer travels. The words are
// those of transfer.Shape, which runs each kind.
type StreamKind string

const (
	StreamNone     StreamKind = ""
	StreamDownload StreamKind = "download" // a file's chunks, saved to disk
	StreamUpload   StreamKind = "upload"   // a file sent in chunks
	StreamFrames   StreamKind = "frames"   // any other stream: its frames
)

// A Param is one declared action parameter. Schema is a JSON Schema
// (2020-12) fragment for its value, defaults included.
type Param struct {
	Name     string `json:"name"`
	Required bool   `json:"required"`
	// Role says what the value identifies, as SnowLuma's own catalog
	// does (RoleGroup, RoleUser, RoleMember, or another such as
	// message_id or file_id); for an array it is what each item
	// identifies. Empty when the value identifies nothing.
	Role        string          `json:"role,omitempty"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
}

// The roles of params that name a target: a group, or a person (a member
// is a person in a group).
const (
	RoleGroup  = "group_id"
	RoleUser   = "user_id"
	RoleMember = "member_id"
)

// Target reports whether the param names a group or a person.
func (p Param) Target() bool {
	return p.Role == RoleGroup || p.Role == RoleUser || p.Role == RoleMember
}

// An Example is an illustrative call. It is never executed by the catalog.
type Example struct {
	Summary string          `json:"summary"`
	Params  json.RawMessage `json:"params"`
	Notes   string          `json:"notes,omitempty"`
}

// A Brief is the compact index entry that list and search return.
type Brief struct {
	Name     string `json:"name"`
	Category string `json:"category"`
	// CategoryLabel is the category's English label, filled in by Load
	// from the action's file.
	CategoryLabel string   `json:"categoryLabel"`
	Summary       string   `json:"summary"`
	Aliases       []string `json:"aliases"`
	ReadOnly      bool     `json:"readOnly"`
	Stream        bool     `json:"stream"`
	// Supported is false for a stub, a no-op or an action SnowLuma
	// registers but does not implement, and absent otherwise: such an
	// action answers without doing what its name says, or always fails.
	Supported *bool `json:"supported,omitempty"`
	// Sensitive marks an action whose answer is a credential or key of
	// the account (cookies, CSRF token, clientkey, rkeys, database keys).
	Sensitive bool `json:"sensitive,omitempty"`
	// Destructive marks an irreversible effect on people or the account:
	// kicks, leaving a group, deleting a friend, a recall, deleted files.
	Destructive bool `json:"destructive,omitempty"`
	// Send marks an action that posts something others see (messages,
	// forwards, pokes, likes, files, announcements): sends are paced.
	Send bool `json:"send,omitempty"`
}

// IsSupported reports whether the action does what its name says (see
// Brief.Supported).
func (b *Brief) IsSupported() bool { return b.Supported == nil || *b.Supported }

// sourceFile is the layout of one file under actions/.
type sourceFile struct {
	Category string    `json:"category"`
	Label    string    `json:"label"`
	Order    int       `json:"order"`
	Actions  []*Action `json:"actions"`
}

// Load reads and indexes the embedded catalog. It fails on malformed files,
// duplicate names or aliases, and actions filed under the wrong category.
func Load() (*Catalog, error) {
	return load(files)
}

// Preload starts Load in the background and returns a function that waits
// for its result. A server uses it so that answering a host's first
// requests, which need no catalog, does not wait for the catalog's few
// milliseconds of decoding.
func Preload() func() (*Catalog, error) {
	get := sync.OnceValues(Load)
	go get()
	return get
}

func load(fsys fs.FS) (*Catalog, error) {
	names, err := fs.Glob(fsys, "actions/*.json")
	if err != nil {
		return nil, err
	}
	type ordered struct {
		order int
		cat   Category
	}
	cats := map[string]*ordered{}
	c := &Catalog{version: Version, byName: make(map[string]*Action)}
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		var src sourceFile
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&src); err != nil {
			return nil, fmt.Errorf("catalog: %s: %w", path.Base(name), err)
		}
		if src.Category == "" || src.Label == "" {
			return nil, fmt.Errorf("catalog: %s: category and label are required", path.Base(name))
		}
		for _, a := range src.Actions {
			if a.Category == "" {
				a.Category = src.Category
			}
			if a.Category != src.Category {
				return nil, fmt.Errorf("catalog: %s: action %q is filed under %q but says %q", path.Base(name), a.Name, src.Category, a.Category)
			}
			if a.CategoryLabel != "" {
				return nil, fmt.Errorf("catalog: %s: action %q sets categoryLabel, which comes from the file's label", path.Base(name), a.Name)
			}
			a.CategoryLabel = src.Label
			if err := c.add(a); err != nil {
				return nil, fmt.Errorf("catalog: %s: %w", path.Base(name), err)
			}
		}
		// A large category may span several files; they must agree.
		if oc, ok := cats[src.Category]; ok {
			if oc.cat.Label != src.Label || oc.order != src.Order {
				return nil, fmt.Errorf("catalog: %s: category %q disagrees with another file on its label or order", path.Base(name), src.Category)
			}
			oc.cat.Count += len(src.Actions)
			continue
		}
		cats[src.Category] = &ordered{src.Order, Category{Name: src.Category, Label: src.Label, Count: len(src.Actions)}}
	}
	for _, oc := range slices.SortedFunc(maps.Values(cats), func(a, b *ordered) int { return a.order - b.order }) {
		c.categories = append(c.categories, oc.cat)
	}
	c.indexOnce = sync.OnceValue(c.buildIndex)
	c.categoriesJSON = sync.OnceValues(func() ([]byte, error) { return encode(c.categories) })
	slices.SortFunc(c.actions, func(a, b *Action) int { return strings.Compare(a.Name, b.Name) })
	return c, nil
}

func (c *Catalog) add(a *Action) error {
	if a.Name == "" {
		return fmt.Errorf("an action has no name")
	}
	if a.Supported != nil && *a.Supported {
		return fmt.Errorf("action %q: write supported only as false; a supported action leaves it out", a.Name)
	}
	if a.Aliases == nil {
		a.Aliases = []string{}
	}
	if a.Params == nil {
		a.Params = []Param{}
	}
	if a.Constraints == nil {
		a.Constraints = []string{}
	}
	if a.Examples == nil {
		a.Examples = []Example{}
	}
	if a.Stream {
		return fmt.Errorf("action %q sets stream; write its streamKind (download, upload or frames), which stream follows from", a.Name)
	}
	switch a.StreamKind {
	case StreamNone, StreamDownload, StreamUpload, StreamFrames:
	default:
		return fmt.Errorf("action %q has streamKind %q; want download, upload or frames", a.Name, a.StreamKind)
	}
	a.Stream = a.StreamKind != StreamNone
	if a.ReadOnly && (a.Destructive || a.Send) {
		return fmt.Errorf("action %q is read-only but flagged destructive or send", a.Name)
	}
	for _, n := range append([]string{a.Name}, a.Aliases...) {
		if prev, ok := c.byName[n]; ok {
			return fmt.Errorf("name %q of action %q is already taken by %q", n, a.Name, prev.Name)
		}
		c.byName[n] = a
	}
	schema, err := inputSchema(a.Params)
	if err != nil {
		return fmt.Errorf("action %q: %w", a.Name, err)
	}
	a.InputSchema = schema
	a.compiled = sync.OnceValues(func() (*validate.ObjectSchema, error) { return validate.CompileObject(a.InputSchema) })
	a.encoded = sync.OnceValues(a.encode)
	c.actions = append(c.actions, a)
	return nil
}

// inputSchema builds the open object schema of a parameter list: each
// parameter's schema with its description, and the required names. It
// splices bytes rather than decoding and re-encoding each schema, since it
// runs for every action at start-up.
func inputSchema(params []Param) (json.RawMessage, error) {
	sorted := slices.Clone(params)
	slices.SortFunc(sorted, func(a, b Param) int { return strings.Compare(a.Name, b.Name) })
	var b bytes.Buffer
	b.WriteString(`{"type":"object","properties":{`)
	var required []string
	for i, p := range sorted {
		if p.Name == "" {
			return nil, fmt.Errorf("a parameter has no name")
		}
		if i > 0 {
			if p.Name == sorted[i-1].Name {
				return nil, fmt.Errorf("parameter %q is declared twice", p.Name)
			}
			b.WriteByte(',')
		}
		name, _ := json.Marshal(p.Name)
		b.Write(name)
		b.WriteByte(':')
		schema := bytes.TrimSpace(p.Schema)
		if len(schema) == 0 {
			schema = []byte("{}")
		}
		if schema[0] != '{' || !json.Valid(schema) {
			return nil, fmt.Errorf("parameter %q: schema is not a JSON object", p.Name)
		}
		if p.Description == "" {
			b.Write(schema)
		} else {
			desc, _ := json.Marshal(p.Description)
			b.WriteString(`{"description":`)
			b.Write(desc)
			if rest := bytes.TrimSpace(schema[1:]); rest[0] != '}' {
				b.WriteByte(',')
			}
			b.Write(schema[1:])
		}
		if p.Required {
			required = append(required, p.Name)
		}
	}
	b.WriteString(`}`)
	if len(required) > 0 {
		req, _ := json.Marshal(required)
		b.WriteString(`,"required":`)
		b.Write(req)
	}
	b.WriteString(`,"additionalProperties":true}`)
	return b.Bytes(), nil
}

// Version reports the SnowLuma release the catalog describes.
func (c *Catalog) Version() string { return c.version }

// Len reports how many actions the catalog holds (aliases not counted).
func (c *Catalog) Len() int { return len(c.actions) }

// Categories returns every category in its canonical order with its count.
func (c *Catalog) Categories() []Category { return slices.Clone(c.categories) }

// Actions returns every action in catalog order.
func (c *Catalog) Actions() []*Action { return slices.Clone(c.actions) }

// Lookup finds an action by its name or one of its aliases.
func (c *Catalog) Lookup(name string) (*Action, bool) {
	a, ok := c.byName[name]
	return a, ok
}

// Category resolves a category by its canonical name or, ignoring case, its
// English label.
func (c *Catalog) Category(name string) (Category, bool) {
	for _, cat := range c.categories {
		if cat.Name == name || strings.EqualFold(cat.Label, name) {
			return cat, true
		}
	}
	return Category{}, false
}

// The JSON forms of the catalog's answers are encoded once, on first use,
// and shared by every answer that holds them: compact, without HTML
// escaping, and with the embedded schemas and examples compacted. They
// never change, since the catalog is immutable.

// JSON returns a's whole entry as JSON, the answer of get_action and an
// element of the catalog resource.
func (a *Action) JSON() ([]byte, error) {
	e, err := a.encodings()
	return e.full, err
}

// BriefJSON returns a's light entry as JSON, an element of list and search
// answers: its name, the first clause of its summary, its aliases when it
// has any, and its flags when set (readOnly and stream when true,
// supported when false, sensitive, destructive, send). The whole Brief is
// in JSON (get_action) and in the catalog resource.
func (a *Action) BriefJSON() ([]byte, error) {
	e, err := a.encodings()
	return e.brief, err
}

func (a *Action) encodings() (encodings, error) {
	if a.encoded == nil { // an Action built outside Load
		return a.encode()
	}
	return a.encoded()
}

func (a *Action) encode() (encodings, error) {
	brief, err := encode(a.Brief.Entry())
	if err != nil {
		return encodings{}, fmt.Errorf("catalog: encoding %s: %w", a.Name, err)
	}
	full, err := encode(a)
	if err != nil {
		return encodings{}, fmt.Errorf("catalog: encoding %s: %w", a.Name, err)
	}
	return encodings{brief, full}, nil
}

// CategoriesJSON returns the categories with their counts as a JSON array,
// the answer of list_categories.
func (c *Catalog) CategoriesJSON() ([]byte, error) { return c.categoriesJSON() }

// encode is json.Marshal without HTML escaping.
func encode(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Required lists the names of a's top-level required parameters.
func (a *Action) Required() []string {
	var r []string
	for _, p := range a.Params {
		if p.Required {
			r = append(r, p.Name)
		}
	}
	return r
}

// Param returns a's declared parameter called name.
func (a *Action) Param(name string) (Param, bool) {
	for _, p := range a.Params {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}

// CheckParams validates params, a JSON object, against a's inputSchema and
// returns each failing field, or nil when they are valid.
func (a *Action) CheckParams(params json.RawMessage) ([]validate.FieldError, error) {
	compile := a.compiled
	if compile == nil { // an Action built outside Load: compile now
		compile = func() (*validate.ObjectSchema, error) { return validate.CompileObject(a.InputSchema) }
	}
	s, err := compile()
	if err != nil {
		return nil, fmt.Errorf("catalog: %s: inputSchema: %w", a.Name, err)
	}
	return s.Check(params), nil
}
