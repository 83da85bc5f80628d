"""What a person reads: terminal tables and progress, charts, the HTML report."""
