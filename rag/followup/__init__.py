"""Follow-ups in a conversation: the standalone question they stand for, and small talk."""
