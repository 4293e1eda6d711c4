"""Running Glassbox for a department: several processes behind nginx (docs/deploy.md)."""
