"""Install and uninstall, in each mode: one repository (``install``, ``uninstall``), every worktree of it
(``worktrees``), a bare repository people push to (``server``), every repository git creates from now on
(``template``), every repository under some roots (``fleet``); and what they write: the hook scripts
(``hookscripts``), the runtime copy (``runtime_files``), the record of it all (``manifest``), the push
guard in git's transport (``pushguard``), the ignore block (``gitexclude``), and what uninstall recognises
as agentguard's when the record is gone (``recognised``)."""
