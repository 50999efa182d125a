"""Provenance you can act on (DESIGN.md section 10): who wrote what and what became of it
(`audit`), the archive's one sanctioned rewrite (`redaction`), the marks a redaction
leaves that every reader applies (`marks`), and the code an entry cites (`cites`).

Nothing is imported here: the index reads `marks` on every sync, and the rest loads
only when a command asks for it.
"""
