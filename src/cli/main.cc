// Placeholder replaced by the CLI module.
int main() { return 0; }
