'''What a night costs, and a night that fits a budget.

:mod:`iogap.plan.inventory` lists every case the loaded profile generates
(measured cases per partition, and the judgements with the cases they
read); :mod:`iogap.plan.cost` gives each its nodes, bytes written and
expected wall time (measured in the results database where it ran before,
else estimated from its geometry, which its family package's ``cost``
module states); :mod:`iogap.plan.nightplan` picks a night's
cases within a node-hour or wall-time budget: canaries every night, the
rest in a rotation, every judgement with all its sides. The plan is a set
of ReFrame ``-n Check@variant`` options (``iogap plan``).
'''
