"""k-anonymization of relational + textual datasets (rx-anon); no Django here."""
