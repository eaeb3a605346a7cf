package model_test

import (
	"testing"

	"github.com/latentree/latentree/model"
)

func TestParseInit(t *testing.T) {
	for _, c := range []struct {
		s    string
		want model.Init
	}{
		{"surrogate", model.InitSurrogate},
		{"random", model.InitRandom},
		{"spectral", model.InitSpectral},
		{"Spectral", model.InitSpectral},
	} {
		got, err := model.ParseInit(c.s)
		if err != nil || got != c.want {
			t.Errorf("ParseInit(%q) = %v, %v; want %v", c.s, got, err, c.want)
		}
	}
	for _, s := range []string{"", "moments"} {
		if _, err := model.ParseInit(s); err == nil {
			t.Errorf("ParseInit(%q): no error", s)
		}
	}
}
