package safety

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Redacted replaces each string and number of a redacted answer.
const Redacted = "[redacted]"

// RedactData rewrites a OneBot envelope so that every string and number
// inside its data member becomes Redacted. Keys, their order, nesting,
// booleans and nulls are kept, so the shape of the answer stays visible
// while nothing usable remains; the envelope's other members (status,
// retcode, message, wording, echo) pass through unchanged. An envelope
// without data is returned as it is.
func RedactData(envelope json.RawMessage) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(envelope))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("the answer is not a JSON object")
	}
	var out bytes.Buffer
	out.WriteByte('{')
	for n := 0; dec.More(); n++ {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("reading the answer: %w", err)
		}
		key, _ := tok.(string)
		if n > 0 {
			out.WriteByte(',')
		}
		writeString(&out, key)
		out.WriteByte(':')
		if key == "data" {
			if err := redactValue(dec, &out); err != nil {
				return nil, err
			}
			continue
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("reading the answer: %w", err)
		}
		out.Write(raw)
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("reading the answer: %w", err)
	}
	out.WriteByte('}')
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("the answer has trailing data")
	}
	return out.Bytes(), nil
}

// redactValue copies the next value of dec to out with its strings and
// numbers replaced.
func redactValue(dec *json.Decoder, out *bytes.Buffer) error {
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("reading the answer: %w", err)
	}
	switch v := tok.(type) {
	case json.Delim:
		open, close := byte('{'), byte('}')
		if v == '[' {
			open, close = '[', ']'
		}
		out.WriteByte(open)
		for n := 0; dec.More(); n++ {
			if n > 0 {
				out.WriteByte(',')
			}
			if open == '{' {
				k, err := dec.Token()
				if err != nil {
					return fmt.Errorf("reading the answer: %w", err)
				}
				key, _ := k.(string)
				writeString(out, key)
				out.WriteByte(':')
			}
			if err := redactValue(dec, out); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return fmt.Errorf("reading the answer: %w", err)
		}
		out.WriteByte(close)
	case string, json.Number:
		writeString(out, Redacted)
	case bool:
		if v {
			out.WriteString("true")
		} else {
			out.WriteString("false")
		}
	case nil:
		out.WriteString("null")
	default:
		return fmt.Errorf("unexpected token %T in the answer", tok)
	}
	return nil
}

// writeString writes s as a JSON string without HTML escaping.
func writeString(out *bytes.Buffer, s string) {
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)           // a string always encodes
	out.Truncate(out.Len() - 1) // Encode's newline
}
