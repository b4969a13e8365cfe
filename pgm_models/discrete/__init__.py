"""What the discrete families share: categorical attributes' domains and encoding, the layout of
attribute values and value pairs, and the compiled counting kernels over them.
"""
