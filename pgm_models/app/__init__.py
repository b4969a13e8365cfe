"""The application: the ``pgm-models`` command, the zoo it runs, its report, progress display,
summaries and plots. It sits on top of everything else; nothing in the library imports it.
"""
