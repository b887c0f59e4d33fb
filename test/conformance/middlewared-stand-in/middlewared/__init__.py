# The package the appliance's exceptions live in; see service_exception.py beside this file.
