"""The steering console: the Textual app and the `kernelseek` command line.

Importing this package must stay cheap: `kernelseek --help` may not pull in Textual,
anthropic or numpy. Heavy imports live inside the command handlers and the app modules.
"""
