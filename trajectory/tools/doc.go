// Package tools is the one codec between trajectory steps and the tool
// calls of a chat model: the OpenAI function schemas of the actions, Parse
// (tool name + JSON arguments → step) and Arguments (step → arguments).
// The arguments each action takes come from trajectory's field table
// (trajectory.Kind.Args), which validation uses too.
package tools
