package main

import (
	"context"
	"fmt"
	"os"
	"strings"
)

// command is one of the CLI's commands: what `classproof help NAME` and `NAME --help` print.
// Each is declared beside its run function, in the file named for it.
type command struct {
	name, summary, example, exits string
	run                           func(ctx context.Context, args []string) int
}

// commands are set in init, in the order usage lists them: their run functions print their own
// help from this table.
var commands []command

func init() {
	commands = []command{runCommand, redgreenCommand, bisectCommand, mutantsCommand, gateCommand, benchCommand,
		requiredCommand, doctorCommand, lanesCommand, observeCommand, versionCommand, helpCommand}
}

// subcommands are the commands under a command ("mutants merge"): their help comes from here;
// usage does not list them, their command's help does.
var subcommands = []command{mergeCommand}

func lookup(name string) (command, bool) {
	for _, c := range append(commands, subcommands...) {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func usage() string {
	var b strings.Builder
	b.WriteString("usage: classproof COMMAND [flags]\n\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-15s %s\n", c.name, c.summary)
	}
	b.WriteString("\nRun 'classproof help COMMAND' (or 'classproof COMMAND --help') for its flags, an example and its exit codes.\n")
	return b.String()
}

// dispatch runs the command args name, or says which one was meant.
func dispatch(ctx context.Context, args []string) int {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, usage())
		return exitUsage
	}
	switch args[0] {
	case "-h", "--help":
		fmt.Print(usage())
		return exitPassed
	}
	c, ok := lookup(args[0])
	if !ok {
		names := make([]string, len(commands))
		for i, c := range commands {
			names[i] = c.name
		}
		fmt.Fprintf(os.Stderr, "classproof: unknown command %q; did you mean %q? ('classproof help' lists every command)\n", args[0], closest(args[0], names))
		return exitUsage
	}
	return c.run(ctx, args[1:])
}

var helpCommand = command{"help", "what a command does, its flags, an example and its exit codes", "classproof help run", "0; 2 an unknown command", helpCmd}

func helpCmd(ctx context.Context, args []string) int {
	if len(args) == 0 {
		fmt.Print(usage())
		return exitPassed
	}
	// A subcommand is named by its words ("help mutants merge") or quoted ("help 'mutants
	// merge'"); its help comes through its command, which dispatches it.
	for _, name := range []string{strings.Join(args, " "), args[0]} {
		if c, ok := lookup(name); ok && c.name != "help" {
			return dispatch(ctx, append(strings.Fields(c.name), "--help"))
		}
	}
	return dispatch(ctx, args[:1])
}
