"""The doctor's checks, one module per group (``groups.GROUPS`` lists them in the order they run);
``base`` holds what every check uses: the ``Context`` it reads and records into, the ``Check``
result, and the ``Repair`` a check names when ``doctor --fix`` can mend what it found."""
