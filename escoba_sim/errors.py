"""The package's error base: every error the library raises for bad input or a folder it cannot use is an
``EscobaError`` carrying structured fields (the parameter by its library name, the folder, the command that
continues the work as argv), so each front end renders it in its own words: the command line names its flags
and prints the resume hint, a Python caller reads the library's parameter names.

A message is a (translated) template whose placeholders are filled when it is rendered; a placeholder whose
value is a ``Parameter`` is filled with the parameter's library name (``str(error)``) or with whatever the
front end calls it (``error.render(name_of=...)``: the CLI passes its flag, ``--teams`` for ``teams``), and a
``Command`` with ``escoba-sim`` and its argv. Imports nothing of the package (it sits at the bottom layer,
beside ``i18n``)."""

import shlex
from collections.abc import Callable


class Parameter(str):
    """A parameter of the library, by its library name (``make_spec``'s ``teams``, ``chunk``)."""


class Command(tuple):
    """A command line that continues or repeats the work, as argv after ``escoba-sim``."""

    def __str__(self) -> str:
        return "escoba-sim " + shlex.join(self)


def _as_is(name: str) -> str:
    return name


def _rebuilt(cls: type, args: tuple, state: dict) -> "EscobaError":
    """An ``EscobaError`` of class ``cls`` as it was pickled: its attributes (template, fields, parameter, folder,
    resume, and a subclass's own) set as they were, ``__init__`` not called (a subclass's takes other arguments)."""
    error = cls.__new__(cls, *args)
    error.args = args
    error.__dict__.update(state)
    return error


class EscobaError(ValueError):
    """An error a person can act on. ``template`` is the message with ``{placeholders}`` for ``fields``;
    ``parameter``: the library parameter at fault, if one is; ``folder``: the folder concerned; ``resume``:
    the command (argv) that continues the work, rendered by the front end after the message."""

    def __init__(self, template: str, *, parameter: str | None = None, folder=None,
                 resume: tuple[str, ...] | None = None, **fields):
        self.template = template
        self.fields = fields
        self.parameter = parameter
        self.folder = folder
        self.resume = Command(resume) if resume is not None else None
        super().__init__(self.render())

    def render(self, name_of: Callable[[str], str] = _as_is) -> str:
        """The message, each ``Parameter`` named by ``name_of`` (the library name by default)."""
        # the folder is a field of the message too: most messages name it as {folder}
        given = {"folder": self.folder, **self.fields} if self.folder is not None else self.fields
        # an error inside the message (``around``) is rendered with the same names as the message
        values = {k: (name_of(v) if isinstance(v, Parameter) else v.render(name_of) if isinstance(v, EscobaError)
                      else v) for k, v in given.items()}
        return self.template.format(**values) if values else self.template

    @classmethod
    def around(cls, error: BaseException, template: str, *, parameter: str | None = None, **fields) -> "EscobaError":
        """``error`` as the ``{problem}`` of a message of this class, its parameter (unless ``parameter`` names
        the one at fault, as a strategy's error inside a ladder's), folder and resume command kept (an error of a
        run, say, re-raised as a comparison's, with the run's label before it)."""
        return cls(template, parameter=parameter or getattr(error, "parameter", None),
                   folder=getattr(error, "folder", None), resume=getattr(error, "resume", None), problem=error, **fields)

    def __str__(self) -> str:
        return self.render()

    def __reduce__(self):  # raised in a worker process (a process pool, Dask), re-raised in the parent
        return _rebuilt, (type(self), self.args, self.__dict__)
