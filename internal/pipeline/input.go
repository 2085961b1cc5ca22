package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/lang"
	"github.com/snowluma/snowluma-mcp/internal/outcome"
	"github.com/snowluma/snowluma-mcp/internal/quote"
	"github.com/snowluma/snowluma-mcp/internal/seal"
	"github.com/snowluma/snowluma-mcp/internal/validate"
)

// The params round of the *_with_input tools. When a field of the
// action's top-level required list is absent, the call is answered with a
// form (a typed field per parameter with a simple schema, one JSON-object
// string field, params_json, for the others) and a sealed continuation
// bound to the tool and its arguments; the call that comes back carries
// the answer, which is checked here and then run through Run, whose
// params step checks the merged params once. A form that asks for the
// params asks for the confirmation too (gateMayAsk): the go-sdk answers a
// legacy client's call with one round of forms only.

// paramsKey names the one input request of a params round, and
// paramsField its JSON-object field.
const (
	paramsKey   = "params"
	paramsField = "params_json"
)

// RunWithInput runs p for a *_with_input tool: p.Params as given (may be
// incomplete), p.Answers when the call carries requestState or answers.
// The first round asks for what is missing, or runs p when nothing is;
// the second checks the answer and runs the completed call. Every refusal
// of a write is audited, as Run audits its own.
func (x *Executor) RunWithInput(ctx context.Context, c *Call, p Plan) outcome.Reply {
	a := p.Action
	provided := map[string]json.RawMessage{}
	if len(p.Params) > 0 && !bytes.Equal(p.Params, []byte("null")) {
		if err := json.Unmarshal(p.Params, &provided); err != nil {
			return outcome.Fail(outcome.KindInvalidArguments, c.Tool+": argument /params must be a JSON object", "pass params as a JSON object")
		}
	}
	hash, err := seal.CanonicalHash(c.Args)
	if err != nil {
		return outcome.Fail(outcome.KindInvalidArguments, c.Tool+": the arguments cannot be bound to a continuation: "+err.Error(), "send the arguments as a plain JSON object without duplicate keys")
	}
	if p.Answers {
		return x.resumeInput(ctx, c, a, provided, hash)
	}
	plan := Plan{Action: a, Params: merge(provided, nil)}
	if r, ok := x.fence(a); !ok {
		return x.refused(c, plan, r)
	}
	var missing []string
	for _, name := range a.Required() {
		if _, ok := provided[name]; !ok {
			missing = append(missing, name)
		}
	}
	if len(missing) == 0 {
		return x.Run(ctx, c, plan)
	}
	// What was given must already be right: only the missing fields are asked.
	errs, bad := x.checkParams(a, plan.Params)
	if bad != nil {
		return x.refused(c, plan, *bad)
	}
	errs = slices.DeleteFunc(errs, func(e validate.FieldError) bool { return slices.Contains(missing, strings.TrimPrefix(e.Pointer, "/")) })
	if len(errs) > 0 {
		return x.refused(c, plan, invalidParams(a, errs, false, ""))
	}
	plain := strings.TrimSuffix(c.Tool, "_with_input")
	if c.Client == nil || !c.Client.Forms() {
		return x.refused(c, plan, outcome.Fail(outcome.KindElicitationUnsupported,
			fmt.Sprintf("%s needs %s, and this client did not advertise form elicitation, so it cannot be asked for", a.Name, strings.Join(missing, ", ")),
			fmt.Sprintf("call %s with complete params (see get_action %s)", plain, a.Name)))
	}
	// The confirmation comes with the params, in one form (gateMayAsk).
	confirm := x.safety.Confirm.Needs(a.Destructive, a.ReadOnly) || x.gateMayAsk(c, a)
	state, err := x.sealer.Seal(seal.Claims{Tool: c.Tool, ArgsHash: hash, Missing: missing, Confirm: confirm})
	if errors.Is(err, seal.ErrTooManyPending) {
		return outcome.Fail(outcome.KindTooManyPending, err.Error(), fmt.Sprintf("answer or abandon pending forms, or call %s with complete params", plain))
	}
	if err != nil {
		return outcome.Fail(outcome.KindContinuation, "could not seal the continuation: "+err.Error(), "try again")
	}
	return outcome.Ask(map[string]outcome.Form{paramsKey: paramsForm(x.lang, a, provided, missing, confirm)}, state)
}

// resumeInput checks the continuation and the answer, then runs the
// action. The continuation is consumed (open) before anything is checked
// or sent, so a state answers at most once however often it is replayed.
// A round that only asked for confirmation is resume's to check, as every
// confirmation is. The completed params are checked once, by Run's params
// step, which reports a misfit as the answer's (invalid_answer). Every
// refusal is audited.
func (x *Executor) resumeInput(ctx context.Context, c *Call, a *catalog.Action, provided map[string]json.RawMessage, hash string) outcome.Reply {
	restart := fmt.Sprintf("call %s again without requestState to get a new form, or %s with complete params", c.Tool, strings.TrimSuffix(c.Tool, "_with_input"))
	plan := Plan{Action: a, Params: merge(provided, nil), restart: restart}
	refuse := func(r outcome.Reply) outcome.Reply { return x.refused(c, plan, r) }
	claims, r, ok := x.open(c, hash, restart)
	if !ok {
		return refuse(r)
	}
	if len(claims.Missing) == 0 {
		plan.Answers, plan.round = true, &claims
		return x.Run(ctx, c, plan)
	}
	var resp *Answer
	if c.Client != nil {
		resp = c.Client.Answer(paramsKey)
	}
	if resp == nil {
		return refuse(outcome.Fail(outcome.KindInvalidAnswer, "the continuation came back without an answer to the form; nothing was run", restart))
	}
	if r, ok := unanswered(resp, restart); ok {
		return refuse(r)
	}
	switch resp.Action {
	case "accept":
	case "decline":
		return refuse(outcome.Fail(outcome.KindDeclined, "the user declined to provide "+strings.Join(claims.Missing, ", ")+"; nothing was run", "ask the user how to proceed; "+restart))
	case "cancel":
		return refuse(outcome.Fail(outcome.KindCancelled, "the user cancelled the form; nothing was run", restart))
	default:
		return refuse(outcome.Fail(outcome.KindInvalidAnswer, fmt.Sprintf("the form's answer has action %q; nothing was run", resp.Action), restart))
	}

	fields, asJSON := splitMissing(a, claims.Missing)
	asked := fieldNames(fields)
	if len(asJSON) > 0 {
		asked = append(asked, paramsField)
	}
	if claims.Confirm {
		asked = append(asked, confirmField)
	}
	if r, ok := extraFields(resp.Content, restart, asked...); !ok {
		return refuse(r)
	}
	answer := map[string]json.RawMessage{}
	if len(asJSON) > 0 {
		text, ok := resp.Content[paramsField].(string)
		if !ok {
			return refuse(outcome.Fail(outcome.KindInvalidAnswer, "the answer has no "+paramsField+" string; nothing was run", restart))
		}
		dec := json.NewDecoder(strings.NewReader(text))
		if err := dec.Decode(&answer); err != nil || answer == nil || dec.More() {
			return refuse(outcome.Fail(outcome.KindInvalidAnswer, paramsField+" is not a JSON object; nothing was run", restart))
		}
	}
	var problems []string
	for _, k := range slices.Sorted(maps.Keys(answer)) {
		switch {
		case k == "action" || k == "execution":
			problems = append(problems, k+" cannot be set by the answer (the action name and execution options are fixed)")
		case provided[k] != nil:
			problems = append(problems, k+" was already provided and cannot be overwritten")
		case slices.Contains(fieldNames(fields), k):
			problems = append(problems, k+" has its own field in the form, not in "+paramsField)
		case !slices.Contains(claims.Missing, k):
			problems = append(problems, k+" was not asked for")
		}
	}
	for _, f := range fields {
		v, ok := resp.Content[f.name]
		if !ok || v == nil {
			continue // reported as missing below
		}
		if why := fieldMisfit(f.schema, v); why != "" {
			// The form's own field types hold whether or not the
			// catalog check is on: turning that off is for params a
			// newer SnowLuma accepts, not for answers that break the
			// form this server sent.
			problems = append(problems, f.name+" does not fit its form field: "+why)
			continue
		}
		raw, err := fieldValue(v)
		if err != nil {
			problems = append(problems, f.name+" cannot be encoded: "+err.Error())
			continue
		}
		answer[f.name] = raw
	}
	for _, m := range claims.Missing {
		if _, ok := answer[m]; !ok {
			problems = append(problems, m+" is missing from the answer")
		}
	}
	if len(problems) > 0 {
		return refuse(outcome.Fail(outcome.KindInvalidAnswer, "the answer was refused: "+strings.Join(problems, "; ")+"; nothing was run", restart))
	}
	if claims.Confirm {
		if r, ok := checkConfirm(a, resp, false, restart); !ok {
			return refuse(r)
		}
	}
	plan.Params, plan.Confirmed, plan.answered = merge(provided, answer), claims.Confirm, true
	return x.Run(ctx, c, plan)
}

// formField is one typed field of a missing-parameter form: a parameter
// whose schema an elicitation form can carry as it is.
type formField struct {
	name   string
	schema map[string]any // a PrimitiveSchemaDefinition
}

// splitMissing sorts the missing parameters into typed form fields and the
// rest, which the form asks for as one JSON object in params_json. It
// depends only on the action and the missing names, so the resuming round
// computes the same split as the asking one without carrying it in the
// sealed state.
func splitMissing(a *catalog.Action, missing []string) (fields []formField, asJSON []string) {
	for _, m := range missing {
		p, _ := a.Param(m)
		if m != paramsField && m != confirmField {
			if schema, ok := primitiveField(p); ok {
				fields = append(fields, formField{m, schema})
				continue
			}
		}
		asJSON = append(asJSON, m)
	}
	return fields, asJSON
}

// primitiveField returns the form field for a parameter whose JSON Schema
// is one an elicitation form accepts (MCP's PrimitiveSchemaDefinition): an
// integer or a number with bounds, a string with lengths or a date, uri or
// email format, a boolean, or an enum of strings. The catalog's description
// is the field's title. A schema with any other keyword (a message that may
// be segments, an object, an array, a union) is not simple: ok is false.
func primitiveField(p catalog.Param) (map[string]any, bool) {
	var schema map[string]any
	if err := json.Unmarshal(p.Schema, &schema); err != nil {
		return nil, false
	}
	typ, _ := schema["type"].(string)
	field := map[string]any{"type": typ, "title": p.Description}
	allowed := map[string][]string{
		"integer": {"minimum", "maximum"},
		"number":  {"minimum", "maximum"},
		"string":  {"minLength", "maxLength", "format", "enum"},
		"boolean": {},
	}
	keys, ok := allowed[typ]
	if !ok {
		return nil, false
	}
	for k, v := range schema {
		switch {
		case k == "type":
		case k == "not" && typ == "integer" && isNotZero(v):
			// Not 0 cannot be said in a form; the answer's check says it.
		case slices.Contains(keys, k):
			if k == "format" && !slices.Contains([]any{"date", "date-time", "email", "uri"}, v) {
				return nil, false
			}
			if k == "enum" && !allStrings(v) {
				return nil, false
			}
			field[k] = v
		default:
			return nil, false
		}
	}
	return field, true
}

// isNotZero reports whether v is the schema {"const": 0}, the "never 0" of
// message ids.
func isNotZero(v any) bool {
	m, ok := v.(map[string]any)
	return ok && len(m) == 1 && m["const"] == float64(0)
}

func allStrings(v any) bool {
	vs, ok := v.([]any)
	return ok && len(vs) > 0 && !slices.ContainsFunc(vs, func(e any) bool { _, s := e.(string); return !s })
}

// givenValues lists the params already given with their values, so that
// a person who is asked for the rest, and to confirm, sees which group,
// whom and how long: group_id=20001, duration=600. Each value is its JSON,
// clipped to maxShownValue characters.
func givenValues(provided map[string]json.RawMessage) string {
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(provided)) {
		parts = append(parts, name+"="+quote.Clip(strings.TrimSpace(string(provided[name])), maxShownValue))
	}
	return strings.Join(parts, ", ")
}

// maxShownValue is the most characters of a given value a form shows.
const maxShownValue = 60

// paramsForm builds the form for the missing fields: a typed field for
// each parameter with a simple schema, and params_json, a JSON object, for
// the others.
func paramsForm(l lang.Lang, a *catalog.Action, provided map[string]json.RawMessage, missing []string, confirm bool) outcome.Form {
	fields, asJSON := splitMissing(a, missing)
	var b strings.Builder
	if len(missing) == 1 {
		b.WriteString(l.Sprintf(lang.FormNeedsOne, a.Name))
	} else {
		b.WriteString(l.Sprintf(lang.FormNeedsMany, a.Name, len(missing)))
	}
	props := map[string]any{}
	var required []string
	for _, f := range fields {
		props[f.name] = f.schema
		required = append(required, f.name)
	}
	if len(fields) > 0 {
		b.WriteString(l.Sprintf(lang.FormFillIn, strings.Join(fieldNames(fields), ", ")))
	}
	if len(asJSON) > 0 {
		b.WriteString(l.Sprintf(lang.FormEnterJSON, paramsField))
		for _, m := range asJSON {
			p, _ := a.Param(m)
			fmt.Fprintf(&b, "\n- %s: %s", m, p.Description)
		}
		props[paramsField] = map[string]any{
			"type":        "string",
			"title":       l.Sprintf(lang.FormJSONTitle),
			"description": l.Sprintf(lang.FormJSONHelp, strings.Join(asJSON, ", "), asJSON[0]),
		}
		required = append(required, paramsField)
	}
	if len(provided) > 0 {
		b.WriteString(l.Sprintf(lang.FormAlreadySet, givenValues(provided)))
	}
	if confirm {
		// The same form asks the person to confirm the action itself.
		b.WriteString(l.Sprintf(lang.FormMustConfirm, confirmField, a.Name, summaryIn(l, a)))
		props[confirmField] = confirmProperty(l)
		required = append(required, confirmField)
	}
	return outcome.Form{
		Message: b.String(),
		Schema: map[string]any{
			"type":       "object",
			"properties": props,
			"required":   required,
		},
	}
}

func fieldNames(fields []formField) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f.name
	}
	return out
}

// fieldValue encodes a typed field's answer as the parameter's JSON value.
// A whole number comes back from the client's JSON as a float64; it is
// written without a fraction or exponent so that the integer check and
// SnowLuma see the number typed. Whatever the client sent, the action's
// schema check decides.
func fieldValue(v any) (json.RawMessage, error) {
	if f, ok := v.(float64); ok && f == float64(int64(f)) && f > -1<<53 && f < 1<<53 {
		return strconv.AppendInt(nil, int64(f), 10), nil
	}
	return json.Marshal(v)
}

// fieldMisfit says how a typed field's answer breaks the field's schema
// as the form sent it (its type, bounds, lengths and values), or "".
func fieldMisfit(schema map[string]any, v any) string {
	typ, _ := schema["type"].(string)
	switch typ {
	case "integer", "number":
		n, ok := v.(float64)
		if !ok {
			return fmt.Sprintf("must be %s %s, not %s", article(typ), typ, jsonKind(v))
		}
		if typ == "integer" && n != math.Trunc(n) {
			return "must be a whole number"
		}
		if lo, ok := schema["minimum"].(float64); ok && n < lo {
			return fmt.Sprintf("must be at least %v", lo)
		}
		if hi, ok := schema["maximum"].(float64); ok && n > hi {
			return fmt.Sprintf("must be at most %v", hi)
		}
	case "string":
		s, ok := v.(string)
		if !ok {
			return "must be a string, not " + jsonKind(v)
		}
		n := float64(utf8.RuneCountInString(s))
		if lo, ok := schema["minLength"].(float64); ok && n < lo {
			return fmt.Sprintf("must have at least %v characters", lo)
		}
		if hi, ok := schema["maxLength"].(float64); ok && n > hi {
			return fmt.Sprintf("must have at most %v characters", hi)
		}
		if enum, ok := schema["enum"].([]any); ok && !slices.Contains(enum, any(s)) {
			return "must be one of the form's choices"
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return "must be true or false, not " + jsonKind(v)
		}
	}
	return ""
}

func article(typ string) string {
	if typ == "integer" {
		return "an"
	}
	return "a"
}

// jsonKind names the JSON type of a decoded value.
func jsonKind(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "null"
}

// merge joins the provided params and the answer into one object, keeping
// every value's bytes.
func merge(provided, answer map[string]json.RawMessage) json.RawMessage {
	all := make(map[string]json.RawMessage, len(provided)+len(answer))
	for k, v := range provided {
		all[k] = v
	}
	for k, v := range answer {
		all[k] = v
	}
	b, _ := json.Marshal(all) // raw values that decoded once encode again
	return b
}
