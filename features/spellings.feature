@writes
Feature: Every spelling of an address is guarded
  Routers and proxies fold many spellings of an address onto one: a
  trailing slash, a doubled slash, a letter written percent-encoded (RFC
  3986 says it is the same address), a "." or ".." segment, upper case.
  When the part of a deployment that checks tokens reads the address one
  way and the part that routes it reads it another, a write slips past the
  check. So a write without a valid token is refused at every spelling of
  the addresses the API gives, and changes nothing there.

  The suite takes each address as the API gives it (the event list from the
  API root, an event from its creation) and writes it another way. A
  refusal may have any status but a success: a router that knows no such
  address answers 404, a firewall that will not take it 400, and a redirect
  carries nothing out. What counts is that nothing changed.

  @spec
  Scenario Outline: A new event sent without a valid token to the event list's address written <spelling> creates nothing
    When a caller sends a new event to the event list's address written <spelling>
    Then the write is refused
    When a caller with an invalid token sends a new event to the event list's address written <spelling>
    Then the write is refused
    And no event with either name sent was created

    @AUTH-3
    Examples: paths under /api/
      | spelling                      |
      | with a trailing slash         |
      | with a doubled slash          |
      | with a letter percent-encoded |
      | with a "." segment            |
      | with a ".." segment           |

    @AUTH-4
    Examples: a path outside /api/, unless the router ignores case
      | spelling      |
      | in upper case |

  @spec
  Scenario Outline: An event is neither changed nor deleted without a valid token at its address written <spelling>
    Given the user has created an event
    When a caller sends an update of the event to its address written <spelling>, renaming it "Taken over"
    Then the write is refused
    When a caller sends PATCH to the event's address written <spelling>, renaming it "Taken over"
    Then the write is refused
    When a caller sends DELETE to the event's address written <spelling>
    Then the write is refused
    When a caller with an invalid token sends an update of the event to its address written <spelling>, renaming it "Taken over"
    Then the write is refused
    When a caller with an invalid token sends DELETE to the event's address written <spelling>
    Then the write is refused
    And the event is still there with its original name

    @AUTH-3
    Examples: paths under /api/
      | spelling                      |
      | with a trailing slash         |
      | with a doubled slash          |
      | with a letter percent-encoded |
      | with a "." segment            |
      | with a ".." segment           |

    @AUTH-4
    Examples: a path outside /api/, unless the router ignores case
      | spelling      |
      | in upper case |
