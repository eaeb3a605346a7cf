package cli

import "github.com/spf13/cobra"

// viewCommands are the commands that show models (explain, draw, report);
// each registers itself from its own file's init, so that they can be
// added independently.
var viewCommands []func(*env) *cobra.Command
