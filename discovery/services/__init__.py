"""Discovery's writes: the works' and researchers' embeddings, the index, similar researchers."""
