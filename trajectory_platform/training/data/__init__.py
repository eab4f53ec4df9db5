"""The data wing of training: from episodes to the token rows a loss reads.

Serialization and the chat template, the tokenizer, selected-target masks and the one definition
of a target (``labels``), schema augmentation, the dataset stage and its manifest, preference
pairs as token spans and the preference dataset stage with its manifest, and the loader that reads
token rows back. Everything that tokenizes lives here. Nothing here imports the optimizer wing.
"""
