"""The rules layer: variants as data, positions and games, notation, PDN game records."""
