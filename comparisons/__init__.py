"""Side-by-side comparisons of the eager (dyngraph) and static (staticgraph) engines."""
