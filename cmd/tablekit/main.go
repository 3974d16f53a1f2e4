package main

// The commands are added on top of the key-space split and the checkpoint
// store.
func main() {}
