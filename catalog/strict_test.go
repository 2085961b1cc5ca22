package catalog

// The strict validator of the tests: santhosh-tekuri/jsonschema checks every
// catalog schema against the 2020-12 metaschema and validates examples with
// exact numbers. It is kept out of the binary because its package init
// compiles every draft's metaschema on each start (about 10 ms and 1.7 MB,
// more than a bare go-sdk server's whole cold start); the binary validates
// with validate.go instead.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/snowluma/snowluma-mcp/internal/validate"
)

// schemaURL names the single in-memory document a compilation sees.
const schemaURL = "mem:///schema.json"

// strictCompile compiles the JSON Schema (2020-12 unless it says otherwise)
// held in raw. It never loads an external document: any $ref that leaves
// raw fails to compile instead of being fetched or treated as permissive.
func strictCompile(raw json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("schema is not JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(jsonschema.SchemeURLLoader{}) // no scheme is loadable
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, err
	}
	return c.Compile(schemaURL)
}

// strictValidate checks v, a value decoded by jsonschema.UnmarshalJSON (so that
// numbers stay exact), against s. It returns the leaf failures, sorted by
// pointer, or nil when v is valid.
func strictValidate(s *jsonschema.Schema, v any) []validate.FieldError {
	err := s.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []validate.FieldError{{Problem: err.Error()}}
	}
	p := message.NewPrinter(language.English)
	var out []validate.FieldError
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			if _, isRef := e.ErrorKind.(*kind.Reference); !isRef {
				out = append(out, validate.FieldError{Pointer: locPointer(e.InstanceLocation), Problem: e.ErrorKind.LocalizedString(p)})
			}
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	if len(out) == 0 {
		out = append(out, validate.FieldError{Pointer: locPointer(ve.InstanceLocation), Problem: ve.ErrorKind.LocalizedString(p)})
	}
	slices.SortStableFunc(out, func(a, b validate.FieldError) int { return strings.Compare(a.Pointer, b.Pointer) })
	return slices.Compact(out)
}

// locPointer renders an instance location as a JSON pointer (RFC 6901).
func locPointer(loc []string) string {
	var b strings.Builder
	for _, s := range loc {
		b.WriteByte('/')
		s = strings.ReplaceAll(s, "~", "~0")
		b.WriteString(strings.ReplaceAll(s, "/", "~1"))
	}
	return b.String()
}
