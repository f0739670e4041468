"""The envs inside other libraries: TorchRL, Tianshou, OpenSpiel and a single-file PPO (``make test-interop``)."""
