// Package names formats lists of names for error messages.
package names

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Cap joins at most n names, saying how many more there are.
func Cap(names []string, n int) string {
	if len(names) <= n {
		return fmt.Sprint(names)
	}
	return fmt.Sprintf("%v and %d more", names[:n], len(names)-n)
}

// Quote quotes at most n names in sorted order, shortening long ones and
// saying how many more there are.
func Quote(names []string, n int) string {
	s := append([]string(nil), names...)
	sort.Strings(s)
	var q []string
	for i, x := range s {
		if i == n {
			q = append(q, fmt.Sprintf("and %d more", len(s)-n))
			break
		}
		if r := []rune(x); len(r) > 60 {
			x = string(r[:57]) + "..."
		}
		q = append(q, strconv.Quote(x))
	}
	return strings.Join(q, ", ")
}
