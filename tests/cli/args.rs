//! Command lines as data: valid and invalid, with the expected outcome. No request is sent for
//! a bad one.
