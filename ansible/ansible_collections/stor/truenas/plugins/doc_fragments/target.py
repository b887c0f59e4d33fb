from __future__ import annotations


class ModuleDocFragment:
    DOCUMENTATION = r'''
options:
  profile:
    description:
      - The stor profile to use (C(stor profile list)).
      - Defaults to the host's C(stor_profile) variable (the C(stor.truenas.profiles) inventory sets it), else the host's inventory name.
    type: str
  url:
    description:
      - The appliance's URL instead of a profile; the key then comes from O(api_key) or C(STOR_API_KEY) in the controller's environment.
    type: str
  api_key:
    description:
      - An API key for O(url). Passed to stor in its environment, never on its command line, and never returned.
    type: str
  ca:
    description: Trust the CA certificate(s) in this PEM file on the controller.
    type: path
  insecure:
    description: Do not verify the appliance's TLS certificate.
    type: bool
    default: false
  timeout:
    description: Give up on the appliance after this many seconds (stor's C(--timeout)).
    type: int
  session:
    description:
      - Use stor's session agent. Off by default, so that each task is one stor process with one login of its own.
    type: bool
    default: false
  stor:
    description: The stor executable on the controller; by default the one found on PATH.
    type: path
notes:
  - Runs on the controller through the module's action plugin; nothing runs on the appliance but its API.
'''
