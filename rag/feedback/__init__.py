"""What people say about answers: their votes (:mod:`rag.feedback.votes`)."""
