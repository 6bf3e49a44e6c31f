// Replaced by the profile module.
