"""Training: optimizers, global step, savers and monitored sessions."""
