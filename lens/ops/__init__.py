"""Op families: each module registers its ops and defines their public wrappers."""
