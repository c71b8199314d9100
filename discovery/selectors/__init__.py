"""Discovery's reads: nearest works by meaning, similar researchers."""
