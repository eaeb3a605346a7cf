package noisyor

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// FuzzReadJSON: the model-file reader never panics, and whatever it
// accepts is a valid network that survives a write and a read unchanged.
func FuzzReadJSON(f *testing.F) {
	var buf bytes.Buffer
	if err := ImageNetwork().WriteJSON(&buf, nil); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.String())
	f.Add(`{"format":"latentree-model","version":1,"type":"noisy-or","sources":[{"prior":0.3,"children":{"a":0.1,"b":0.2}}],"leak":{"a":0.01,"b":0,"c":0.5}}`)
	f.Add(`{"format":"latentree-model","version":1,"type":"noisy-or","effects":["a","a"]}`)
	f.Add(`{"format":"latentree-model","version":1,"type":"noisy-or","sources":[{"prior":2,"children":{"a":-1}}]}`)
	f.Add(`{"format":"latentree-model","version":1,"type":"noisy-or","sources":[{"prior":0.5,"children":{"a":0.1},"depth":1,"quartet":["a","x","y","z"]}]}`)
	f.Add(`{"type":"noisy-or","leak":[1,2]}`)
	f.Fuzz(func(t *testing.T, s string) {
		n, _, err := ReadJSON(strings.NewReader(s))
		if err != nil {
			return
		}
		if err := n.Validate(); err != nil {
			t.Fatalf("accepted an invalid network: %v", err)
		}
		var out bytes.Buffer
		if err := n.WriteJSON(&out, nil); err != nil {
			t.Fatalf("cannot write what was read: %v", err)
		}
		m, _, err := ReadJSON(&out)
		if err != nil {
			t.Fatalf("cannot read what was written: %v\n%s", err, out.String())
		}
		if !reflect.DeepEqual(n, m) {
			t.Fatalf("round trip changed the network:\n%+v\n%+v", n, m)
		}
	})
}
