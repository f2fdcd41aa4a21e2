"""Sessions: the runs (traces) of one conversation, in turn order, and when it ended.

``model`` holds ``Session`` and ``Turn``; ``end`` the end rule (the explicit marker attribute
and the idle timeout); ``assemble`` builds sessions from spans or runs in any arrival order;
``stored`` reads them from the trace store by build and day; ``render`` gives the
``sessions list`` row and the ``sessions show`` document.
"""
