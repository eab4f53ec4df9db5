"""The optimizer wing of training: from token rows to a checkpoint.

The loss with its one label shift, SFT and DPO objectives, packing and variable-length attention,
the loop, LoRA, the memory inventory, the default model, checkpoints, the training manifest and
the run itself. It reads the data wing's rows; the data wing never imports it.
"""
