package noisyor

import (
	"fmt"
	"strconv"
	"strings"
)

// columnsOf returns, for every effect of n, the column of b holding it. It
// checks that b's columns are consistent (one per name, no name repeated,
// enough words for b.Rows) and that b has exactly n's effects, in any
// order.
func columnsOf(n *Network, b *Binary) ([]int, error) {
	if len(b.Ones) != len(b.Names) || len(b.Zeros) != len(b.Names) || len(b.Missing) != len(b.Names) {
		return nil, fmt.Errorf("noisyor: data have %d names but %d/%d/%d columns", len(b.Names), len(b.Ones), len(b.Zeros), len(b.Missing))
	}
	words := (b.Rows + 63) / 64
	idx := make(map[string]int, len(b.Names))
	for c, name := range b.Names {
		if _, dup := idx[name]; dup {
			return nil, fmt.Errorf("noisyor: data column %q repeated", name)
		}
		if len(b.Ones[c]) < words || len(b.Zeros[c]) < words {
			return nil, fmt.Errorf("noisyor: data column %q has fewer words than %d rows need", name, b.Rows)
		}
		idx[name] = c
	}
	col := make([]int, len(n.Effects))
	var absent []string
	for a, name := range n.Effects {
		c, ok := idx[name]
		if !ok {
			absent = append(absent, strconv.Quote(name))
			continue
		}
		col[a] = c
	}
	if len(absent) > 0 {
		return nil, fmt.Errorf("noisyor: effect%s %s of the network not in the data", plural(len(absent)), listNames(absent))
	}
	if len(b.Names) > len(n.Effects) {
		var extra []string
		for _, name := range b.Names {
			if _, ok := n.Index(name); !ok {
				extra = append(extra, strconv.Quote(name))
			}
		}
		return nil, fmt.Errorf("noisyor: data column%s %s not an effect of the network", plural(len(extra)), listNames(extra))
	}
	return col, nil
}

func plural(k int) string {
	if k == 1 {
		return ""
	}
	return "s"
}

// listNames joins up to five quoted names and says how many more there are.
func listNames(q []string) string {
	if len(q) <= 5 {
		return strings.Join(q, ", ")
	}
	return strings.Join(q[:5], ", ") + fmt.Sprintf(" and %d more", len(q)-5)
}
